import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAdminAPI
import LatchkeyAdminClient
import LatchkeyTestSupport
import OpenAPIRuntime

extension TestClientProtocol {
    /// The admin API's generated client over this test client, calling with the operator key `key`:
    /// tests send typed inputs and read typed answers (`try output.ok.body.json`, which fails the
    /// test on any other status); raw calls stay for what the client cannot send (refused keys,
    /// malformed parameters) and for what has no type (headers, the exact wire shape).
    func admin(_ key: String) -> LatchkeyAdminClient.Client {
        LatchkeyAdminClient.Client(serverURL: URL(string: "http://localhost")!, configuration: .init(dateTranscoder: .iso8601),
                                   transport: TestClientTransport(self),
                                   middlewares: [FixedHeadersMiddleware([.authorization: "Bearer \(key)"])])
    }
}

extension LatchkeyAdminClient.Client {
    /// The user's detail (`getUser`); throws, failing the test, unless the answer is 200.
    func user(_ id: String) async throws -> Components.Schemas.UserDetail {
        try await getUser(path: .init(userId: id)).ok.body.json
    }
}

/// The admin API's answers to raw calls, read through its generated types (nil when the body is
/// not one), for calls the client cannot make or whose headers the test reads too.
extension JSONAnswer {
    /// A page of users (`listUsers`).
    var userPage: Components.Schemas.UserPage? { decoded() }
    /// A page of the audit trail (`listEvents`).
    var eventPage: Components.Schemas.EventPage? { decoded() }
    /// A page of the courier's messages (`listCourierMessages`).
    var messagePage: Components.Schemas.MessagePage? { decoded() }
    /// An import's report (`importUsers`).
    var importReport: Components.Schemas.ImportReport? { decoded() }
}
