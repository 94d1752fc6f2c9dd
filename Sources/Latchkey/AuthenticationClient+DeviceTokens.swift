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
    /// the client's clock. When the storage cannot be read because the device is locked (a
    /// ``CredentialStorageError`` whose `isDeviceLocked` is `true`: a Keychain before the phone's
    /// first unlock) it answers `true`: a token may be there, and "none" would make the app hide
    /// quick login for good; `loginWithDeviceAuthenticationToken()` then fails with `.storage`.
    /// Any other storage failure (a missing entitlement, a damaged file) answers `false`: no token
    /// can be used.
    public func isAuthorizationTokenExist() async -> Bool {
        let stored: StoredDeviceToken?
        do { stored = try await vault.deviceToken() } catch {
            return (error as? any CredentialStorageError)?.isDeviceLocked == true
        }
        guard let stored else { return false }
        guard let expiry = stored.expiresAt else { return true }
        return expiry > now()
    }

    /// `loginWithDeviceAuthenticationToken`: logs in with the stored device token; 1003 when none
    /// is stored. A token the server refuses (`invalid_credentials`: unknown, expired or revoked)
    /// is dropped; any other refusal keeps it, the 401 of a refused proof included.
    /// - Throws: `LatchkeyError`: the server's refusal; `.noDeviceToken` (1003); `.storage` when
    ///   the storage cannot be read (a Keychain locked before the first unlock).
    public func loginWithDeviceAuthenticationToken() async throws(LatchkeyError) -> LoginResult {
        let domain = ErrorDomain.loginWithDeviceAuthenticationToken
        guard let token = try await storedDeviceToken(domain) else { throw noToken(domain) }
        do {
            return try await login(domain, method: .deviceToken) {
                try await api.loginWithDeviceAuthenticationToken(body: .json(.init(deviceToken: token))).ok.body.json
            }
        } catch {
            if error.id == .invalidCredentials { try? await vault.setDeviceToken(nil) }
            throw error
        }
    }

    private func storedDeviceToken(_ domain: ErrorDomain) async throws(LatchkeyError) -> String? {
        do { return try await vault.deviceToken()?.token } catch { throw LatchkeyError.storage(error, domain: domain) }
    }

    /// `expireDeviceAuthenticationToken`: revokes the stored token (403 when already expired) and
    /// forgets it; 1003 when none is stored.
    public func expireDeviceAuthenticationToken() async throws(LatchkeyError) {
        let domain = ErrorDomain.expireDeviceAuthenticationToken
        guard let token = try await storedDeviceToken(domain) else { throw noToken(domain) }
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
