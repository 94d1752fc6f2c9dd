import Foundation
import LatchkeyServer
import Testing
import Yams

/// The server's routes are exactly the OpenAPI document's, plus the operational ones and the web pages.
@Suite struct ContractTests {
    @Test func routesMatchTheOpenAPIDocument() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/LatchkeyAPI/openapi.yaml")
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
                                        "POST /reset/answer", "POST /reset/credential", "GET /portal.css"]
        #expect(served.subtracting(operational) == documented)
    }
}
