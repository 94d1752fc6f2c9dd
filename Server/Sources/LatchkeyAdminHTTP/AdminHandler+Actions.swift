import Foundation
import LatchkeyAdminAPI
import LatchkeyCore
import LatchkeyDomain

/// The admin document's actions on one wallet, its devices and sessions.
extension AdminHandler {
    func eraseUser(_ input: Operations.EraseUser.Input) async throws -> Operations.EraseUser.Output {
        try await operators.users.erase(.id(input.path.userId), for: try call)
        return .noContent(.init())
    }

    func deactivateUser(_ input: Operations.DeactivateUser.Input) async throws -> Operations.DeactivateUser.Output {
        try await operators.users.setStatus(.id(input.path.userId), .deactivated, for: try call)
        return .noContent(.init())
    }

    func reactivateUser(_ input: Operations.ReactivateUser.Input) async throws -> Operations.ReactivateUser.Output {
        try await operators.users.setStatus(.id(input.path.userId), .active, for: try call)
        return .noContent(.init())
    }

    func deactivateDevice(_ input: Operations.DeactivateDevice.Input) async throws -> Operations.DeactivateDevice.Output {
        try await operators.users.setStatus(.id(input.path.userId), device: input.path.deviceId, .deactivated, for: try call)
        return .noContent(.init())
    }

    func suspendDevice(_ input: Operations.SuspendDevice.Input) async throws -> Operations.SuspendDevice.Output {
        try await operators.users.setStatus(.id(input.path.userId), device: input.path.deviceId, .suspended, for: try call)
        return .noContent(.init())
    }

    func reactivateDevice(_ input: Operations.ReactivateDevice.Input) async throws -> Operations.ReactivateDevice.Output {
        try await operators.users.setStatus(.id(input.path.userId), device: input.path.deviceId, .active, for: try call)
        return .noContent(.init())
    }

    func unlinkDevice(_ input: Operations.UnlinkDevice.Input) async throws -> Operations.UnlinkDevice.Output {
        try await operators.users.unlink(.id(input.path.userId), device: input.path.deviceId, for: try call)
        return .noContent(.init())
    }

    func endSession(_ input: Operations.EndSession.Input) async throws -> Operations.EndSession.Output {
        try await operators.users.endSession(.id(input.path.userId), sessionID: input.path.sessionId, for: try call)
        return .noContent(.init())
    }

    func resendVerification(_ input: Operations.ResendVerification.Input) async throws -> Operations.ResendVerification.Output {
        try await operators.courier.resendVerification(.id(input.path.userId), for: try call)
        return .accepted(.init())
    }

    func sendResetLink(_ input: Operations.SendResetLink.Input) async throws -> Operations.SendResetLink.Output {
        let kind = CredentialKind(rawValue: input.query.credential?.rawValue ?? "password") ?? .password
        try await operators.courier.sendResetLink(.id(input.path.userId), kind, for: try call)
        return .accepted(.init())
    }

    func markVerified(_ input: Operations.MarkVerified.Input) async throws -> Operations.MarkVerified.Output {
        try await operators.users.markVerified(.id(input.path.userId), for: try call)
        return .noContent(.init())
    }
}
