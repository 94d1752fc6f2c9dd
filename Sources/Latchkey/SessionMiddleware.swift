import Foundation
import HTTPTypes
import LatchkeyCore
import OpenAPIRuntime

/// Sends the session as `Authorization: Bearer …` (the DPoP middleware turns it into a bound
/// `DPoP` credential). Only the session's own refusal (`not_logged_in`, `invalid_token`, Kratos's
/// `session_inactive`) signs the user out; a refused proof (a clock off by minutes, a missing nonce),
/// a busy server or any other 401 leaves the session alone.
struct SessionMiddleware: ClientMiddleware {
    let vault: SessionVault
    /// Calls that work without a session; they never carry one, so their 401s are about credentials.
    static let publicOperations: Set<String> = [
        "retrieveMfaQuestionsWithMetadata", "retrieveEncryptionSettings", "retrievePasswordConfigurations", "retrievePasscodeConfigurations",
        "retrieveProfileMetadata", "registerNewUser", "loginByUsernamePassword", "loginByPIN", "loginByNonce",
        "registerWithMFA", "loginWithDeviceAuthenticationToken", "expireDeviceAuthenticationToken",
        "createNativeRegistrationFlow", "sendPhoneVerificationCode", "verifyPhoneNumber", "updateRegistrationFlow",
        "createNativeLoginFlow", "updateLoginFlow", "resetForgottenPassword", "resetForgottenPasscode",
        "retrieveCustomerProfileMetaData", "registerCustomer", "loginByFederatedIdentity",
    ]
    /// The refusals that mean the session itself is over (expired, revoked, unknown).
    static let sessionEnded: Set<ErrorID> = [.notLoggedIn, .invalidToken, .sessionInactive, .sessionNotFound]

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws
        -> (HTTPResponse, HTTPBody?) {
        var request = request
        // `logout` revokes the session already signed out here (`SessionVault.beginSignOut`).
        let token = if operationID == "logout" { await vault.pendingRevocation() }
            else if Self.publicOperations.contains(operationID) { String?.none }
            else { await vault.sessionToken() }
        if let token { request.headerFields[.authorization] = "Bearer \(token)" }
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status == .unauthorized, let token, operationID != "logout" else { return (response, responseBody) }
        var data = Data()
        if let responseBody { data = try await Data(collecting: responseBody, upTo: 1024 * 1024) }
        let refusal = ErrorEnvelopeMiddleware.errorBody(data, status: response.status)
        if Self.sessionEnded.contains(ErrorID(rawValue: refusal.id)) { await vault.discard(ifToken: token) }
        return (response, HTTPBody(data))
    }
}
