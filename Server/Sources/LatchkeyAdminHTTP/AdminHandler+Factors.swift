import Foundation
import LatchkeyAdminAPI
import LatchkeyCore
import LatchkeyDomain

/// The admin document's operations on a wallet's second factors.
extension AdminHandler {
    func listUserFactors(_ input: Operations.ListUserFactors.Input) async throws -> Operations.ListUserFactors.Output {
        let inventory = try await operators.factors.factors(.id(input.path.userId), for: try call)
        return .ok(.init(body: .json(.init(factors: inventory.factors.map(Self.wire)))))
    }

    func removeUserFactor(_ input: Operations.RemoveUserFactor.Input) async throws -> Operations.RemoveUserFactor.Output {
        try await operators.factors.remove(.id(input.path.userId), factor: input.path.factorId, for: try call)
        return .noContent(.init())
    }

    static func wire(_ factor: EnrolledFactor) -> Components.Schemas.Factor {
        .init(id: factor.id, kind: .init(rawValue: factor.kind.rawValue) ?? .question, name: factor.name, createdAt: factor.createdAt,
              lastUsedAt: factor.lastUsedAt, remaining: factor.remaining, backedUp: factor.backedUp)
    }
}
