import Foundation
import LatchkeyCore

/// The traits of a phone sign-up identity (Kratos's `traits`).
public struct IdentityTraits: Sendable, Equatable {
    public var firstName: String?
    public var lastName: String?
    public var phone: String?
    public var email: String?
    public init(firstName: String?, lastName: String?, phone: String?, email: String?) {
        self.firstName = firstName
        self.lastName = lastName
        self.phone = phone
        self.email = email
    }
}

/// A session a self-service flow started, with its user.
public struct FlowSession: Sendable, Equatable {
    public var token: String
    public var session: SessionRecord
    public var user: UserRecord
}

extension SignupService {
    /// Completes a registration flow (`POST /a/self-service/registration?flow=ID`, method password):
    /// the flow's phone must be verified and be the traits' phone; the password follows the
    /// issuer's rules; the phone must be free (an email is an unverified claim, reserved only when
    /// its link is opened). Creates the wallet user and a limited session at
    /// once (Kratos's whoami, the key registration and logout only, until the key is registered).
    public func register(flowID: String, method: String, traits: IdentityTraits, password: String,
                         caller: Caller) async throws -> FlowSession {
        let store = self.store.recording(into: caller.audit)
        let deviceID = caller.device.deviceID
        return try await admitted(1, for: caller) { hasher in
            let flow = try await liveFlow(flowID, .registration)
            guard method == "password" else { throw DomainError.invalidField("method", "Only the password method is supported.") }
            var problems: [(field: String?, message: FlowMessage)] = []
            let first = traits.firstName?.trimmingCharacters(in: .whitespaces) ?? ""
            let last = traits.lastName?.trimmingCharacters(in: .whitespaces) ?? ""
            let phone = traits.phone?.trimmingCharacters(in: .whitespaces) ?? ""
            let email = traits.email?.trimmingCharacters(in: .whitespaces) ?? ""
            if first.isEmpty { problems.append(("traits.name.first", FlowMessage.missing("first"))) }
            if last.isEmpty { problems.append(("traits.name.last", FlowMessage.missing("last"))) }
            if first.unicodeScalars.count > 64 || last.unicodeScalars.count > 64 { problems.append((nil, FlowMessage.generic("Names have at most 64 characters."))) }
            if phone.isEmpty {
                problems.append(("traits.phone", FlowMessage.missing("phone")))
            } else if !PhoneNumber.isValid(phone) {
                problems.append(("traits.phone", FlowMessage.generic("\"\(phone)\" is not a phone number in E.164 form.")))
            } else if flow.phoneVerifiedAt == nil || flow.phone != phone {
                problems.append(("traits.phone", FlowMessage.generic("The phone number is not verified for this flow.")))
            }
            if !email.isEmpty, !EmailAddress.isValid(email) {
                problems.append(("traits.email", FlowMessage.generic("\"\(email)\" is not a valid email address.")))
            }
            if password.isEmpty {
                problems.append(("password", FlowMessage.missing("password")))
            } else {
                do { try issuer.validateNewPassword(password, field: "password") } catch let error as DomainError {
                    problems.append(("password", FlowMessage.passwordPolicy(error.message)))
                }
            }
            if !problems.isEmpty { throw FlowFormError(flow: flow, messages: problems) }
            if try await store.user(issuer: issuer.id, phoneNormalized: phone) != nil {
                throw FlowFormError(flow: flow, messages: [(nil, FlowMessage.duplicate)])
            }
            // The email is an unverified claim: it reserves nothing until its link is opened (so it can
            // never block its owner's registration), and one that a wallet already holds is dropped.
            let claim: String? = email.isEmpty ? nil
                : try await store.user(issuer: issuer.id, emailNormalized: EmailAddress.normalized(email)) == nil ? email : nil

            let time = now()
            let user = UserRecord(
                id: SecureRandom.identifier(), issuer: issuer.id, email: claim ?? "",
                emailNormalized: "phone:" + phone,
                firstName: first, lastName: last, phone: phone, externalId: nil, passwordHash: try await hasher.hash(password),
                passcodeHash: nil, emailVerified: false, createdAt: time, updatedAt: time, appInstanceVerified: true,
                passwordUpdatedAt: time, phoneNormalized: phone, languages: caller.client.languages.headerValue)
            // The session is limited until the device key is registered (`issueCertificate`), as the
            // sign-up document has the user "considered logged in" only then.
            let (token, session) = sessions.newSession(userID: user.id, deviceID: deviceID, provenKey: caller.provenKey, at: time,
                                                     limited: true)
            var messages: [OutboxMessage] = []
            var tokens: [TokenRecord] = []
            if let claim {
                let link = try outbox.emailVerification(userID: user.id, to: claim, firstName: first, languages: caller.client.languages,
                                                        at: time)
                messages.append(link.message)
                tokens.append(link.token)
            }
            do {
                audit(.userRegistered, user: user.id, deviceID: deviceID, details: ["method": "phone"], for: caller)
                try await store.completeRegistration(flowID: flow.id, user: user, deviceID: deviceID, session: session,
                                                     tokens: tokens, messages: messages, now: time)
            } catch StoreError.phoneInUse, StoreError.emailInUse {
                throw FlowFormError(flow: flow, messages: [(nil, FlowMessage.duplicate)])
            } catch StoreError.deviceKeyInUse {
                throw DomainError(.deviceKeyInUse, field: "DPoP")
            } catch StoreError.flowNotUsable {
                _ = try await liveFlow(flowID, .registration)
                throw FlowFormError(flow: flow, messages: [("traits.phone", FlowMessage.generic("The phone number is not verified for this flow."))])
            }
            return FlowSession(token: token, session: session, user: user)
        }
    }
}
