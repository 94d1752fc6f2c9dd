import Foundation

/// The MFA prompt of a device not linked to the wallet (the spec's 412): a single-use challenge
/// and the factors the wallet may answer it with.
public struct MFAPrompt: Sendable, Equatable {
    /// The challenge token the answer carries (`registerWithMFA`).
    public var challengeToken: String
    /// The wallet's enrolled factors the issuer accepts here (`FactorKind.promptOrder`).
    public var factors: [FactorKind]
    /// The pending question, when `question` is among `factors`.
    public var question: String?
    /// The options of a passkey assertion, when `passkey` is among `factors`.
    public var passkeyOptions: PasskeyRequestOptions?

    public init(challengeToken: String, factors: [FactorKind], question: String?, passkeyOptions: PasskeyRequestOptions?) {
        self.challengeToken = challengeToken
        self.factors = factors
        self.question = question
        self.passkeyOptions = passkeyOptions
    }
}

/// WebAuthn's request options (`PublicKeyCredentialRequestOptionsJSON`) in domain terms: the
/// server-made challenge, the relying party, the credentials that may answer (none: a discoverable
/// login), user verification always required.
public struct PasskeyRequestOptions: Sendable, Equatable {
    public var challenge: Data
    public var rpID: String
    /// Credential ids that may answer; empty for a discoverable (usernameless) login.
    public var allowCredentials: [PasskeyDescriptor]
    public var timeoutMilliseconds: Int

    public init(challenge: Data, rpID: String, allowCredentials: [PasskeyDescriptor], timeoutMilliseconds: Int) {
        self.challenge = challenge
        self.rpID = rpID
        self.allowCredentials = allowCredentials
        self.timeoutMilliseconds = timeoutMilliseconds
    }
}

/// A credential an authenticator may use (`PublicKeyCredentialDescriptorJSON`).
public struct PasskeyDescriptor: Sendable, Equatable {
    public var credentialID: Data
    public var transports: [String]
    public init(credentialID: Data, transports: [String]) {
        self.credentialID = credentialID
        self.transports = transports
    }
}

/// A passkey assertion as the app sent it (`AuthenticationResponseJSON`, base64url decoded).
public struct PasskeyAssertionInput: Sendable, Equatable {
    public var credentialID: Data
    public var clientDataJSON: Data
    public var authenticatorData: Data
    public var signature: Data
    public var userHandle: Data?

    public init(credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}

/// The answer to the MFA prompt: exactly one factor's proof.
public enum MFAProof: Sendable, Equatable {
    /// The pending question's answer (the spec's `mfaSecretAnswer`).
    case answer(String)
    /// A code of the wallet's authenticator app.
    case totp(String)
    /// One of the wallet's recovery codes.
    case recoveryCode(String)
    /// A passkey's assertion to the prompt's `passkeyOptions`.
    case passkey(PasskeyAssertionInput)

    /// How the audit trail names the factor checked.
    public var credentialFactor: CredentialFactor {
        switch self {
        case .answer: .mfaAnswer
        case .totp: .totp
        case .recoveryCode: .recoveryCode
        case .passkey: .passkey
        }
    }

    /// The factor the proof is of.
    public var kind: FactorKind {
        switch self {
        case .answer: .question
        case .totp: .totp
        case .recoveryCode: .recoveryCode
        case .passkey: .passkey
        }
    }
}
