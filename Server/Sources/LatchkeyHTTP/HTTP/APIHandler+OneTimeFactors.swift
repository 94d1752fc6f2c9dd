import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI

/// The authenticator app (TOTP) and recovery codes.
extension APIHandler {
    package func enrollTOTP(_ input: Operations.EnrollTOTP.Input) async throws -> Operations.EnrollTOTP.Output {
        let enrollment = try await oneTimeFactors.enrollTOTP(try caller.identity.require(), caller: caller)
        return .created(.init(body: .json(.init(uri: enrollment.uri, secret: enrollment.secret))))
    }

    package func removeTOTP(_ input: Operations.RemoveTOTP.Input) async throws -> Operations.RemoveTOTP.Output {
        try await oneTimeFactors.removeTOTP(try caller.identity.require(), caller: caller)
        return .noContent(.init())
    }

    package func confirmTOTP(_ input: Operations.ConfirmTOTP.Input) async throws -> Operations.ConfirmTOTP.Output {
        try await oneTimeFactors.confirmTOTP(try caller.identity.require(), code: input.body.json.code, caller: caller)
        return .noContent(.init())
    }

    package func generateRecoveryCodes(_ input: Operations.GenerateRecoveryCodes.Input) async throws -> Operations.GenerateRecoveryCodes.Output {
        let codes = try await oneTimeFactors.generateRecoveryCodes(try caller.identity.require(), caller: caller)
        return .created(.init(body: .json(.init(codes: codes))))
    }

    package func removeRecoveryCodes(_ input: Operations.RemoveRecoveryCodes.Input) async throws -> Operations.RemoveRecoveryCodes.Output {
        try await oneTimeFactors.removeRecoveryCodes(try caller.identity.require(), caller: caller)
        return .noContent(.init())
    }
}
