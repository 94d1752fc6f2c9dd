import Foundation
import LatchkeyAPI
import LatchkeyContract
import LatchkeyDomain
import LatchkeyHTTP
import LatchkeySQL
import LatchkeyServer
import Testing

/// The server's routes are exactly the OpenAPI document's, plus the operational ones and the web pages.
@Suite struct ContractTests {
    @Test func routesMatchTheOpenAPIDocument() throws {
        var documented: Set<String> = []
        for (path, operations) in try OpenAPIDocument.wallet().paths {
            for method in operations.keys { documented.insert("\(method.uppercased()) \(path)") }
        }
        let served = Set(ApplicationRoutes.table.routes.map { "\($0.method.rawValue) \($0.template)" })
        let operational: Set<String> = ["GET /health", "GET /ready", "GET /metrics", "GET /verify-email", "GET /revert-email", "GET /reset",
                                        "POST /verify-email", "POST /revert-email", "POST /reset/answer", "POST /reset/credential",
                                        "GET /portal.css", "GET /confirm-change", "POST /confirm-change",
                                        "GET /openapi.yaml", "GET /openapi.json",
                                        "GET /.well-known/apple-app-site-association", "GET /.well-known/assetlinks.json"]
        #expect(served.subtracting(operational) == documented)
    }

    /// The policies the server enforces are the document's `x-latchkey-policy`, one per operation
    /// (the generated table is current even where `Scripts/generate-api --check` did not run).
    @Test func operationPoliciesAreTheDocuments() throws {
        var declared: [String: OperationPolicy] = [:]
        for (path, operations) in try OpenAPIDocument.wallet().paths {
            for (method, operation) in operations {
                let id = operation.operationId
                let policy = try #require(operation.policy, "\(id) declares no x-latchkey-policy")
                declared[id] = OperationPolicy(
                    operationID: id, method: method.uppercased(), path: path,
                    proof: try #require(OperationPolicy.Proof(rawValue: policy.proof)), nonce: policy.nonce, recordProof: policy.record,
                    session: try #require(OperationPolicy.SessionKind(rawValue: policy.session)),
                    privileged: policy.privileged, hashes: policy.hashes ?? 0)
            }
        }
        #expect(Dictionary(uniqueKeysWithValues: OperationPolicy.all.map { ($0.operationID, $0) }) == declared)
        #expect(OperationPolicy.all.count == declared.count)
    }
}
