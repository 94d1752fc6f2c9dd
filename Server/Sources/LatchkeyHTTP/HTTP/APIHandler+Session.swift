import Foundation
import LatchkeyAPI
import LatchkeyDomain
import LatchkeyServerAPI

extension APIHandler {
    /// The session answer, written once as JSON bytes without the runtime's `JSONEncoder`: apps
    /// ask for it on every return to the foreground, and encoding it cost more than finding the
    /// session. The members of `Components.Schemas.SessionResponse`, dates as
    /// `SecondsDateTranscoder` writes them (`HotPathTests` decodes it with the generated type).
    /// - Throws: `DomainError(.notLoggedIn)` without a session (the edge refuses that first).
    package func sessionAnswer() throws -> [UInt8] {
        let description = authentication.describe(try caller.identity.require().session)
        let dates = SecondsDateTranscoder()
        var json = JSONObjectWriter()
        json.add("customerUri", description.customerUri)
        json.add("deviceId", description.deviceID)
        json.add("createdAt", try dates.encode(description.createdAt))
        json.add("lastSeenAt", try dates.encode(description.lastSeenAt))
        json.add("idleExpiresAt", try dates.encode(description.idleExpiresAt))
        json.add("expiresAt", try dates.encode(description.expiresAt))
        return json.finished()
    }

    /// `sessionAnswer` as the generated type. A request that accepts JSON gets the answer's bytes
    /// as they are (`answeredDirectly`); one that does not reaches the generated handler, whose
    /// runtime takes this form only to refuse the request for its `Accept` header.
    package func currentSession(_ input: Operations.CurrentSession.Input) async throws -> Operations.CurrentSession.Output {
        .ok(.init(body: .json(try Self.answerDecoder.decode(Components.Schemas.SessionResponse.self, from: Data(sessionAnswer())))))
    }

    /// The operations `APIRouteGroups` answers with these functions instead of the generated
    /// handler (when the request accepts JSON), by the generated operation's id.
    package var answeredDirectly: [String: @Sendable () throws -> [UInt8]] {
        [Operations.CurrentSession.id: { [self] in try sessionAnswer() }]
    }

    /// Reads a direct answer back with its dates as `SecondsDateTranscoder` reads them.
    private static let answerDecoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { try SecondsDateTranscoder().decode(try $0.singleValueContainer().decode(String.self)) }
        return decoder
    }()
}
