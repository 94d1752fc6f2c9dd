import Foundation
import LatchkeyAPI
import LatchkeyCore

extension APIHandler {
    /// The caller the edge resolved for this request: the one place a handler reads request state,
    /// which it passes to the services as a value.
    var caller: Caller { RequestCaller.current }

    /// A login's answer; its session is bound to the key the caller proved, if any.
    func wire(_ outcome: LoginOutcome) -> Components.Schemas.LoginResponse {
        switch outcome {
        case .authenticated(let token, let customerUri, let attributes):
            .init(sessionToken: token, tokenType: caller.provenKey == nil ? .bearer : .dPoP, customerUri: customerUri,
                  additionalAttributes: .init(additionalProperties: attributes))
        case .mfaRequired(let question, let challenge):
            .init(code: StatusCode.mfaRequired.rawValue, mfaToken: .init(mfaSecretQuestion: question, challengeToken: challenge))
        }
    }

    func loginByUsernamePassword(_ input: Operations.LoginByUsernamePassword.Input) async throws
        -> Operations.LoginByUsernamePassword.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalidField("body", "Send JSON.") }
        let outcome = try await authentication.loginWithPassword(username: body.username, password: body.password, caller: caller)
        return .ok(.init(body: .json(wire(outcome))))
    }

    func loginByPIN(_ input: Operations.LoginByPIN.Input) async throws -> Operations.LoginByPIN.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalidField("body", "Send JSON.") }
        return .ok(.init(body: .json(wire(try await authentication.loginWithPIN(pin: body.pin, caller: caller)))))
    }

    func loginByNonce(_ input: Operations.LoginByNonce.Input) async throws -> Operations.LoginByNonce.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalidField("body", "Send JSON.") }
        return .ok(.init(body: .json(wire(try await authentication.loginWithNonce(body.nonce, caller: caller)))))
    }

    func registerWithMFA(_ input: Operations.RegisterWithMFA.Input) async throws -> Operations.RegisterWithMFA.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalidField("body", "Send JSON.") }
        let outcome = try await authentication.answerMFA(challengeToken: body.challengeToken, answer: body.mfaSecretAnswer,
                                                         caller: caller)
        return .ok(.init(body: .json(wire(outcome))))
    }

    func generateDeviceAuthenticationToken(_ input: Operations.GenerateDeviceAuthenticationToken.Input) async throws
        -> Operations.GenerateDeviceAuthenticationToken.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalidField("body", "Send JSON.") }
        let (token, expiresAt) = try await authentication.generateDeviceToken(
            try caller.identity.require(), username: body.username, password: body.password, caller: caller)
        return .created(.init(body: .json(.init(deviceToken: token, expiresAt: expiresAt))))
    }

    func expireDeviceAuthenticationToken(_ input: Operations.ExpireDeviceAuthenticationToken.Input) async throws
        -> Operations.ExpireDeviceAuthenticationToken.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalidField("body", "Send JSON.") }
        try await authentication.expireDeviceToken(body.deviceToken)
        return .noContent(.init())
    }

    func loginWithDeviceAuthenticationToken(_ input: Operations.LoginWithDeviceAuthenticationToken.Input) async throws
        -> Operations.LoginWithDeviceAuthenticationToken.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalidField("body", "Send JSON.") }
        return .ok(.init(body: .json(wire(try await authentication.loginWithDeviceToken(body.deviceToken, caller: caller)))))
    }

    func logout(_ input: Operations.Logout.Input) async throws -> Operations.Logout.Output {
        try await authentication.logout(try caller.identity.require())
        return .noContent(.init())
    }

    func currentSession(_ input: Operations.CurrentSession.Input) async throws -> Operations.CurrentSession.Output {
        let description = authentication.describe(try caller.identity.require().session)
        return .ok(.init(body: .json(.init(
            customerUri: description.customerUri, deviceId: description.deviceID, createdAt: description.createdAt,
            lastSeenAt: description.lastSeenAt, idleExpiresAt: description.idleExpiresAt, expiresAt: description.expiresAt))))
    }
}

extension APIHandler {
    func listDevices(_ input: Operations.ListDevices.Input) async throws -> Operations.ListDevices.Output {
        let principal = try caller.identity.require()
        let devices = try await authentication.devices(of: principal).map { device in
            Components.Schemas.LinkedDevice(
                id: device.deviceID, label: device.label, deviceType: device.deviceType, thumbprint: device.keyThumbprint,
                status: .init(rawValue: device.status.rawValue) ?? .active, linkedAt: device.linkedAt,
                lastUsedAt: device.lastLoginAt, current: device.deviceID == principal.deviceID)
        }
        return .ok(.init(body: .json(.init(devices: devices))))
    }

    func unlinkDevice(_ input: Operations.UnlinkDevice.Input) async throws -> Operations.UnlinkDevice.Output {
        try await authentication.unlink(deviceID: input.path.deviceId, of: try caller.identity.require())
        return .noContent(.init())
    }
}
