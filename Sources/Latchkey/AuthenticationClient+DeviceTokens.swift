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
        await vault.setDeviceToken(response.deviceToken, expiresAt: response.expiresAt)
        return response.expiresAt
    }

    /// `isAuthorizationTokenExist`: whether the SDK holds a device token that has not expired by
    /// the client's clock.
    public func isAuthorizationTokenExist() async -> Bool {
        guard await vault.deviceToken() != nil else { return false }
        guard let expiry = await vault.deviceTokenExpiry() else { return true }
        return expiry > now()
    }

    /// `loginWithDeviceAuthenticationToken`: logs in with the stored device token; 1003 when none
    /// is stored. A token the server refuses (expired or revoked) is dropped.
    public func loginWithDeviceAuthenticationToken() async throws(LatchkeyError) -> LoginResult {
        let domain = ErrorDomain.loginWithDeviceAuthenticationToken
        guard let token = await vault.deviceToken() else { throw noToken(domain) }
        do {
            return try await login(domain) {
                try await api.loginWithDeviceAuthenticationToken(body: .json(.init(deviceToken: token))).ok.body.json
            }
        } catch {
            if error.code == .unauthorized { await vault.setDeviceToken(nil) }
            throw error
        }
    }

    /// `expireDeviceAuthenticationToken`: revokes the stored token (403 when already expired) and
    /// forgets it; 1003 when none is stored.
    public func expireDeviceAuthenticationToken() async throws(LatchkeyError) {
        let domain = ErrorDomain.expireDeviceAuthenticationToken
        guard let token = await vault.deviceToken() else { throw noToken(domain) }
        let api = self.api
        do {
            try await context.call(domain) {
                _ = try await api.expireDeviceAuthenticationToken(body: .json(.init(deviceToken: token))).noContent
            }
        } catch {
            if error.code == .notLoggedIn { await vault.setDeviceToken(nil) }
            throw error
        }
        await vault.setDeviceToken(nil)
    }

    private func noToken(_ domain: ErrorDomain) -> LatchkeyError {
        let detail = "No authentication token exists for the device."
        return LatchkeyError(kind: .validation, code: .noDeviceToken, domain: domain, id: .noDeviceToken,
                             message: context.message(for: domain, code: .noDeviceToken) ?? detail, detail: detail)
    }
}
