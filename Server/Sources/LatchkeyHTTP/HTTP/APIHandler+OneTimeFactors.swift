import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI

/// The authenticator app (TOTP) and recovery codes.
extension APIHandler {
    package func enrollTOTP(_ input: Operations.EnrollTOTP.Input) async throws -> Operations.EnrollTOTP.Output {
        throw DomainError(.factorNotOffered)
    }

    package func removeTOTP(_ input: Operations.RemoveTOTP.Input) async throws -> Operations.RemoveTOTP.Output {
        throw DomainError(.factorNotOffered)
    }

    package func confirmTOTP(_ input: Operations.ConfirmTOTP.Input) async throws -> Operations.ConfirmTOTP.Output {
        throw DomainError(.factorNotOffered)
    }

    package func generateRecoveryCodes(_ input: Operations.GenerateRecoveryCodes.Input) async throws -> Operations.GenerateRecoveryCodes.Output {
        throw DomainError(.factorNotOffered)
    }

    package func removeRecoveryCodes(_ input: Operations.RemoveRecoveryCodes.Input) async throws -> Operations.RemoveRecoveryCodes.Output {
        throw DomainError(.factorNotOffered)
    }
}
