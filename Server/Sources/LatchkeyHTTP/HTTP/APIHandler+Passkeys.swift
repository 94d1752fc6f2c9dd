import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI

/// Passkeys: registration, the list, names and removal, and the discoverable login.
extension APIHandler {
    package func startPasskeyRegistration(_ input: Operations.StartPasskeyRegistration.Input) async throws -> Operations.StartPasskeyRegistration.Output {
        let options = try await passkeys.registrationOptions(for: try caller.identity.require())
        return .ok(.init(body: .json(.init(publicKey: wire(options)))))
    }

    package func listPasskeys(_ input: Operations.ListPasskeys.Input) async throws -> Operations.ListPasskeys.Output {
        let list = try await passkeys.passkeys(of: try caller.identity.require())
        return .ok(.init(body: .json(.init(passkeys: list.map(wire)))))
    }

    package func registerPasskey(_ input: Operations.RegisterPasskey.Input) async throws -> Operations.RegisterPasskey.Output {
        // The session first: a call without one is a 401 whatever its body holds.
        let principal = try caller.identity.require()
        let body = input.body.json
        let passkey = try await passkeys.register(try registration(body.credential, field: "credential"), name: body.name,
                                                  principal: principal, caller: caller)
        return .created(.init(body: .json(wire(passkey))))
    }

    package func renamePasskey(_ input: Operations.RenamePasskey.Input) async throws -> Operations.RenamePasskey.Output {
        let renamed = try await passkeys.rename(input.path.passkeyId, to: input.body.json.name, of: try caller.identity.require())
        return .ok(.init(body: .json(wire(renamed))))
    }

    package func removePasskey(_ input: Operations.RemovePasskey.Input) async throws -> Operations.RemovePasskey.Output {
        try await passkeys.remove(input.path.passkeyId, of: try caller.identity.require(), caller: caller)
        return .noContent(.init())
    }

    package func startPasskeyLogin(_ input: Operations.StartPasskeyLogin.Input) async throws -> Operations.StartPasskeyLogin.Output {
        .ok(.init(body: .json(.init(publicKey: wire(try await passkeys.loginOptions(caller: caller))))))
    }

    package func loginWithPasskey(_ input: Operations.LoginWithPasskey.Input) async throws -> Operations.LoginWithPasskey.Output {
        let outcome = try await passkeys.login(try assertion(input.body.json.credential, field: "credential"), caller: caller)
        return .ok(.init(body: .json(wire(outcome))))
    }

    /// A passkey registration (`RegistrationResponseJSON`) in domain terms; a value that is not
    /// base64url is a 400 naming it (`<field>.response.attestationObject`, …).
    func registration(_ json: Components.Schemas.RegistrationResponseJSON, field: String) throws -> WebAuthnRegistration {
        func bytes(_ value: String, _ name: String) throws -> Data {
            guard let data = Base64URL.decode(value) else {
                throw DomainError.invalidField("\(field).\(name)", "\(field).\(name) is not base64url.")
            }
            return data
        }
        return WebAuthnRegistration(credentialID: try bytes(json.rawId, "rawId"),
                                    clientDataJSON: try bytes(json.response.clientDataJSON, "response.clientDataJSON"),
                                    attestationObject: try bytes(json.response.attestationObject, "response.attestationObject"),
                                    transports: json.response.transports ?? [])
    }

    /// Creation options (`PublicKeyCredentialCreationOptionsJSON`) on the wire: a discoverable
    /// credential, user verification required, no attestation.
    func wire(_ options: PasskeyCreationOptions) -> Components.Schemas.PublicKeyCredentialCreationOptionsJSON {
        .init(rp: .init(id: options.rpID, name: options.rpName),
              user: .init(id: Base64URL.encode(options.userHandle), name: options.userName, displayName: options.userName),
              challenge: Base64URL.encode(options.challenge),
              pubKeyCredParams: options.algorithms.map { .init(_type: .publicKey, alg: $0) },
              timeout: options.timeoutMilliseconds,
              excludeCredentials: options.exclude.map {
                  .init(_type: .publicKey, id: Base64URL.encode($0.credentialID), transports: $0.transports.isEmpty ? nil : $0.transports)
              },
              authenticatorSelection: .init(residentKey: "required", requireResidentKey: true, userVerification: "required"),
              attestation: "none")
    }

    func wire(_ passkey: PasskeyRecord) -> Components.Schemas.Passkey {
        .init(id: passkey.id, name: passkey.name, createdAt: passkey.createdAt, lastUsedAt: passkey.lastUsedAt,
              backupEligible: passkey.backupEligible, backedUp: passkey.backedUp,
              transports: passkey.transports.isEmpty ? nil : passkey.transports, aaguid: passkey.aaguid?.uuidString.lowercased())
    }
}
