import Foundation
import LatchkeyAPI
import LatchkeyCore

extension AuthenticationClient {
    /// `generateDeviceAuthenticationToken`: while logged in, the user's credentials give a
    /// long-lived token bound to this device. The SDK keeps it; the app never sees it.
    /// - Returns: when the token expires.
    @discardableResult
    public func generateDeviceAuthenticationToken(username: String, password: String) async throws(LatchkeyError) -> Date {
        let response: Components.Schemas.DeviceTokenResponse = try await context.call(.generateDeviceAuthenticationToken) {
            try await api.generateDeviceAuthenticationToken(body: .json(.init(username: username, password: password)))
                .created.body.json
        }
        do { try await vault.setDeviceToken(response.deviceToken, expiresAt: response.expiresAt) } catch {
            throw LatchkeyError.storage(error, domain: .generateDeviceAuthenticationToken)
        }
        return response.expiresAt
    }

    /// `isAuthorizationTokenExist`: whether the SDK holds a device token that has not expired by
    /// the client's clock.
    public func isAuthorizationTokenExist() async -> Bool {
        guard let stored = await vault.deviceToken() else { return false }
        guard let expiry = stored.expiresAt else { return true }
        return expiry > now()
    }

    /// `loginWithDeviceAuthenticationToken`: logs in with the stored device token; 1003 when none
    /// is stored. A token the server refuses (expired or revoked) is dropped.
    public func loginWithDeviceAuthenticationToken() async throws(LatchkeyError) -> LoginResult {
        let domain = ErrorDomain.loginWithDeviceAuthenticationToken
        guard let token = await vault.deviceToken()?.token else { throw noToken(domain) }
        do {
            return try await login(domain, method: .deviceToken) {
                try await api.loginWithDeviceAuthenticationToken(body: .json(.init(deviceToken: token))).ok.body.json
            }
        } catch {
            if error.code == .unauthorized { try? await vault.setDeviceToken(nil) }
            throw error
        }
    }

    /// `expireDeviceAuthenticationToken`: revokes the stored token (403 when already expired) and
    /// forgets it; 1003 when none is stored.
    public func expireDeviceAuthenticationToken() async throws(LatchkeyError) {
        let domain = ErrorDomain.expireDeviceAuthenticationToken
        guard let token = await vault.deviceToken()?.token else { throw noToken(domain) }
        let api = self.api
        do {
            try await context.call(domain) {
                _ = try await api.expireDeviceAuthenticationToken(body: .json(.init(deviceToken: token))).noContent
            }
        } catch {
            if error.code == .notLoggedIn { try? await vault.setDeviceToken(nil) }
            throw error
        }
        do { try await vault.setDeviceToken(nil) } catch { throw LatchkeyError.storage(error, domain: domain) }
    }

    private func noToken(_ domain: ErrorDomain) -> LatchkeyError {
        let detail = "No authentication token exists for the device."
        return LatchkeyError(kind: .validation, code: .noDeviceToken, domain: domain, id: .noDeviceToken,
                             message: context.message(for: domain, code: .noDeviceToken) ?? detail, detail: detail)
    }
}
