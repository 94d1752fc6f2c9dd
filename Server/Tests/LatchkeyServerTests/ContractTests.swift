import Foundation
import LatchkeyAPI
import LatchkeyDomain
import LatchkeyHTTP
import LatchkeySQL
import LatchkeyServer
import Testing
import Yams

/// The server's routes are exactly the OpenAPI document's, plus the operational ones and the web pages.
@Suite struct ContractTests {
    @Test func routesMatchTheOpenAPIDocument() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/LatchkeyAPI/openapi.yaml")
        let document = try #require(try Yams.load(yaml: String(contentsOf: url, encoding: .utf8)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var documented: Set<String> = []
        for (path, operations) in paths {
            for method in operations.keys where ["get", "post", "put", "patch", "delete"].contains(method) {
                documented.insert("\(method.uppercased()) \(path)")
            }
        }
        let served = Set(ApplicationRoutes.table.routes.map { "\($0.method.rawValue) \($0.template)" })
        let operational: Set<String> = ["GET /health", "GET /ready", "GET /metrics", "GET /verify-email", "GET /revert-email", "GET /reset",
                                        "POST /verify-email", "POST /revert-email", "POST /reset/answer", "POST /reset/credential",
                                        "GET /portal.css", "GET /confirm-change", "POST /confirm-change",
                                        "GET /openapi.yaml", "GET /openapi.json"]
        #expect(served.subtracting(operational) == documented)
    }

    /// The policies the server enforces are the document's `x-latchkey-policy`, one per operation
    /// (the generated table is current even where `Scripts/generate-api --check` did not run).
    @Test func operationPoliciesAreTheDocuments() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/LatchkeyAPI/openapi.yaml")
        let document = try #require(try Yams.load(yaml: String(contentsOf: url, encoding: .utf8)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var declared: [String: OperationPolicy] = [:]
        for (path, operations) in paths {
            for (method, value) in operations where ["get", "post", "put", "patch", "delete"].contains(method) {
                let operation = try #require(value as? [String: Any])
                let id = try #require(operation["operationId"] as? String)
                let policy = try #require(operation["x-latchkey-policy"] as? [String: Any], "\(id) declares no x-latchkey-policy")
                declared[id] = OperationPolicy(
                    operationID: id, method: method.uppercased(), path: path,
                    proof: try #require(OperationPolicy.Proof(rawValue: policy["proof"] as? String ?? "")),
                    nonce: try #require(policy["nonce"] as? Bool), recordProof: try #require(policy["record"] as? Bool),
                    session: try #require(OperationPolicy.SessionKind(rawValue: policy["session"] as? String ?? "")),
                    privileged: try #require(policy["privileged"] as? Bool), hashes: policy["hashes"] as? Int ?? 0)
            }
        }
        #expect(Dictionary(uniqueKeysWithValues: OperationPolicy.all.map { ($0.operationID, $0) }) == declared)
        #expect(OperationPolicy.all.count == declared.count)
    }
}
