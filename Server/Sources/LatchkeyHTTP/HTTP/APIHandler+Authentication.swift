import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI

extension APIHandler {
    /// The caller the edge resolved for this request: the one place a handler reads request state,
    /// which it passes to the services as a value.
    package var caller: Caller { RequestCaller.current }

    /// A login's answer; its session is bound to the key the caller proved, if any.
    package func wire(_ outcome: LoginOutcome) -> Components.Schemas.LoginResponse {
        switch outcome {
        case .authenticated(let token, let customerUri, let attributes):
            .init(sessionToken: token, tokenType: caller.provenKey == nil ? .bearer : .dPoP, customerUri: customerUri,
                  additionalAttributes: .init(additionalProperties: attributes))
        case .mfaRequired(let prompt):
            .init(code: StatusCode.mfaRequired.rawValue,
                  mfaToken: .init(mfaSecretQuestion: prompt.question, challengeToken: prompt.challengeToken,
                                  factors: prompt.factors.map { Components.Schemas.FactorKind(rawValue: $0.rawValue)! },
                                  passkeyOptions: prompt.passkeyOptions.map(wire)))
        }
    }

    package func loginByUsernamePassword(_ input: Operations.LoginByUsernamePassword.Input) async throws
        -> Operations.LoginByUsernamePassword.Output {
        let body = input.body.json
        let outcome = try await authentication.loginWithPassword(username: body.username, password: body.password, caller: caller)
        return .ok(.init(body: .json(wire(outcome))))
    }

    package func loginByPIN(_ input: Operations.LoginByPIN.Input) async throws -> Operations.LoginByPIN.Output {
        let body = input.body.json
        return .ok(.init(body: .json(wire(try await authentication.loginWithPIN(pin: body.pin, caller: caller)))))
    }

    package func loginByNonce(_ input: Operations.LoginByNonce.Input) async throws -> Operations.LoginByNonce.Output {
        let body = input.body.json
        return .ok(.init(body: .json(wire(try await authentication.loginWithNonce(body.nonce, caller: caller)))))
    }

    package func registerWithMFA(_ input: Operations.RegisterWithMFA.Input) async throws -> Operations.RegisterWithMFA.Output {
        let body = input.body.json
        let outcome = try await authentication.answerMFA(challengeToken: body.challengeToken, proof: try proof(of: body),
                                                         caller: caller)
        return .ok(.init(body: .json(wire(outcome))))
    }

    package func generateDeviceAuthenticationToken(_ input: Operations.GenerateDeviceAuthenticationToken.Input) async throws
        -> Operations.GenerateDeviceAuthenticationToken.Output {
        let body = input.body.json
        let (token, expiresAt) = try await authentication.generateDeviceToken(
            try caller.identity.require(), username: body.username, password: body.password, caller: caller)
        return .created(.init(body: .json(.init(deviceToken: token, expiresAt: expiresAt))))
    }

    package func expireDeviceAuthenticationToken(_ input: Operations.ExpireDeviceAuthenticationToken.Input) async throws
        -> Operations.ExpireDeviceAuthenticationToken.Output {
        let body = input.body.json
        try await authentication.expireDeviceToken(body.deviceToken)
        return .noContent(.init())
    }

    package func loginWithDeviceAuthenticationToken(_ input: Operations.LoginWithDeviceAuthenticationToken.Input) async throws
        -> Operations.LoginWithDeviceAuthenticationToken.Output {
        let body = input.body.json
        return .ok(.init(body: .json(wire(try await authentication.loginWithDeviceToken(body.deviceToken, caller: caller)))))
    }

    package func logout(_ input: Operations.Logout.Input) async throws -> Operations.Logout.Output {
        try await authentication.logout(try caller.identity.require(), caller: caller)
        return .noContent(.init())
    }
}

extension APIHandler {
    package func listDevices(_ input: Operations.ListDevices.Input) async throws -> Operations.ListDevices.Output {
        let principal = try caller.identity.require()
        let devices = try await authentication.devices(of: principal).map { device in
            Components.Schemas.LinkedDevice(
                id: device.deviceID, label: device.label, deviceType: device.deviceType,
                applicationVersion: device.applicationVersion, sdkVersion: device.sdkVersion, thumbprint: device.keyThumbprint,
                status: .init(rawValue: device.status.rawValue) ?? .active, linkedAt: device.linkedAt,
                lastUsedAt: device.lastLoginAt, current: device.deviceID == principal.deviceID)
        }
        return .ok(.init(body: .json(.init(devices: devices))))
    }

    package func unlinkDevice(_ input: Operations.UnlinkDevice.Input) async throws -> Operations.UnlinkDevice.Output {
        try await authentication.unlink(deviceID: input.path.deviceId, of: try caller.identity.require(), caller: caller)
        return .noContent(.init())
    }
}
