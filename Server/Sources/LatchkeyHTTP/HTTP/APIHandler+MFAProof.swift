import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI

extension APIHandler {
    /// The one factor's proof an MFA answer carries: none, or more than one, is a 400 naming the
    /// fields (`mfaSecretAnswer`, `totpCode`, `recoveryCode`, `passkey`).
    func proof(of body: Components.Schemas.MFAAnswerRequest) throws -> MFAProof {
        var proofs: [(field: String, proof: MFAProof)] = []
        if let answer = body.mfaSecretAnswer { proofs.append(("mfaSecretAnswer", .answer(answer))) }
        if let code = body.totpCode { proofs.append(("totpCode", .totp(code))) }
        if let code = body.recoveryCode { proofs.append(("recoveryCode", .recoveryCode(code))) }
        if let passkey = body.passkey { proofs.append(("passkey", .passkey(try assertion(passkey, field: "passkey")))) }
        guard proofs.count == 1, let only = proofs.first else {
            let fields = proofs.isEmpty ? "mfaSecretAnswer" : proofs.map(\.field).joined(separator: ", ")
            throw DomainError.invalidField(fields.isEmpty ? "mfaSecretAnswer" : fields,
                                           "Exactly one of mfaSecretAnswer, totpCode, recoveryCode and passkey is required.")
        }
        return only.proof
    }

    /// A passkey assertion (`AuthenticationResponseJSON`) in domain terms; a value that is not
    /// base64url is a 400 naming it (`<field>.response.signature`, …).
    func assertion(_ json: Components.Schemas.AuthenticationResponseJSON, field: String) throws -> PasskeyAssertionInput {
        func bytes(_ value: String, _ name: String) throws -> Data {
            guard let data = Base64URL.decode(value) else {
                throw DomainError.invalidField("\(field).\(name)", "\(field).\(name) is not base64url.")
            }
            return data
        }
        return PasskeyAssertionInput(
            credentialID: try bytes(json.rawId, "rawId"),
            clientDataJSON: try bytes(json.response.clientDataJSON, "response.clientDataJSON"),
            authenticatorData: try bytes(json.response.authenticatorData, "response.authenticatorData"),
            signature: try bytes(json.response.signature, "response.signature"),
            userHandle: try json.response.userHandle.map { try bytes($0, "response.userHandle") })
    }

    /// Request options (`PublicKeyCredentialRequestOptionsJSON`) on the wire: user verification
    /// required; no `allowCredentials` for a discoverable login.
    func wire(_ options: PasskeyRequestOptions) -> Components.Schemas.PublicKeyCredentialRequestOptionsJSON {
        .init(challenge: Base64URL.encode(options.challenge), timeout: options.timeoutMilliseconds, rpId: options.rpID,
              allowCredentials: options.allowCredentials.isEmpty ? nil : options.allowCredentials.map {
                  .init(_type: .publicKey, id: Base64URL.encode($0.credentialID), transports: $0.transports.isEmpty ? nil : $0.transports)
              },
              userVerification: "required")
    }
}
