import Foundation
import Hummingbird
import LatchkeyContract
import LatchkeyDomain
import NIOCore

/// `GET /openapi.yaml` and `/openapi.json`: the contract with this issuer's rules written in
/// (`ServedContract`), built on the first request (about a second of CPU, which a server start
/// need not pay) and kept.
package enum ContractRoutes {
    package static func add(to router: Router<AppRequestContext>, issuer: IssuerSettings, serverURL: String) {
        let cache = Cache(issuer: issuer, serverURL: serverURL)
        router.get("/openapi.yaml") { _, _ in
            let contract = try await cache.contract()
            return Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"], body: .init(byteBuffer: contract.yaml))
        }
        router.get("/openapi.json") { _, _ in
            let contract = try await cache.contract()
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: contract.json))
        }
    }

    private actor Cache {
        let issuer: IssuerSettings, serverURL: String
        private var built: (yaml: ByteBuffer, json: ByteBuffer)?

        init(issuer: IssuerSettings, serverURL: String) {
            self.issuer = issuer
            self.serverURL = serverURL
        }

        func contract() throws -> (yaml: ByteBuffer, json: ByteBuffer) {
            if let built { return built }
            let contract = try ServedContract(issuer: issuer, serverURL: serverURL)
            let buffers = (yaml: ByteBuffer(string: contract.yaml), json: ByteBuffer(data: contract.json))
            built = buffers
            return buffers
        }
    }
}
