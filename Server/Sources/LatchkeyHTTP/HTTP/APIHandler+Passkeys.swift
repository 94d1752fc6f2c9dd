import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI

/// Passkeys: registration, the list, names and removal, and the discoverable login.
extension APIHandler {
    package func startPasskeyRegistration(_ input: Operations.StartPasskeyRegistration.Input) async throws -> Operations.StartPasskeyRegistration.Output {
        throw DomainError(.factorNotOffered)
    }

    package func listPasskeys(_ input: Operations.ListPasskeys.Input) async throws -> Operations.ListPasskeys.Output {
        throw DomainError(.factorNotOffered)
    }

    package func registerPasskey(_ input: Operations.RegisterPasskey.Input) async throws -> Operations.RegisterPasskey.Output {
        throw DomainError(.factorNotOffered)
    }

    package func renamePasskey(_ input: Operations.RenamePasskey.Input) async throws -> Operations.RenamePasskey.Output {
        throw DomainError(.factorNotOffered)
    }

    package func removePasskey(_ input: Operations.RemovePasskey.Input) async throws -> Operations.RemovePasskey.Output {
        throw DomainError(.factorNotOffered)
    }

    package func startPasskeyLogin(_ input: Operations.StartPasskeyLogin.Input) async throws -> Operations.StartPasskeyLogin.Output {
        throw DomainError(.factorNotOffered)
    }

    package func loginWithPasskey(_ input: Operations.LoginWithPasskey.Input) async throws -> Operations.LoginWithPasskey.Output {
        throw DomainError(.factorNotOffered)
    }
}
