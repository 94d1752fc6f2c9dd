import LatchkeyDomain
/// Every route the server answers, as in the OpenAPI document plus the operational ones.
/// A test checks this table against `openapi.yaml`.
public enum ApplicationRoutes {
    public static let table: RouteTable = {
        var table = RouteTable()
        for path in ["/health", "/ready", "/metrics", "/v1/enrollment/mfa-questions", "/v1/enrollment/password-configuration",
                     "/v1/enrollment/passcode-configuration", "/v1/enrollment/profile-metadata", "/v1/enrollment/encryption-settings"] {
            table.add(.get, path)
        }
        table.add(.post, "/v1/enrollment/users")
        table.add(.post, "/v1/enrollment/customer-profile-metadata")
        table.add(.post, "/v1/enrollment/customers")
        table.add(.post, "/v1/auth/login/federated")
        table.add(.post, "/v1/enrollment/verification-email")
        table.add(.post, "/v1/enrollment/expired-password")
        table.add(.post, "/v1/enrollment/password-reset")
        table.add(.post, "/v1/enrollment/passcode-reset")
        table.add(.get, "/v1/profile")
        table.add(.patch, "/v1/profile")
        for path in ["/v1/profile/password", "/v1/profile/passcode", "/v1/profile/mfa-answers"] { table.add(.put, path) }
        for path in ["/v1/auth/login/password", "/v1/auth/login/pin", "/v1/auth/login/nonce", "/v1/auth/mfa",
                     "/v1/auth/device-token", "/v1/auth/login/device-token", "/v1/auth/logout"] {
            table.add(.post, path)
        }
        table.add(.delete, "/v1/auth/device-token")
        table.add(.get, "/v1/auth/session")
        table.add(.get, "/v1/devices")
        table.add(.delete, "/v1/devices/{deviceId}")
        table.add(.post, "/v1/login-statistics")
        table.add(.get, "/v1/enrollment/factors")
        table.add(.get, "/v1/factors")
        table.add(.get, "/v1/passkeys")
        for path in ["/v1/passkeys", "/v1/passkeys/registration-options", "/v1/auth/login/passkey/options", "/v1/auth/login/passkey"] {
            table.add(.post, path)
        }
        table.add(.patch, "/v1/passkeys/{passkeyId}")
        table.add(.delete, "/v1/passkeys/{passkeyId}")
        for path in ["/v1/factors/totp", "/v1/factors/totp/confirmation", "/v1/factors/recovery-codes"] { table.add(.post, path) }
        for path in ["/v1/factors/totp", "/v1/factors/recovery-codes"] { table.add(.delete, path) }
        for path in ["/a/self-service/registration/api", "/a/self-service/login/api", "/a/sessions/whoami"] { table.add(.get, path) }
        for path in ["/a/self-service/registration", "/a/self-service/login", "/identity/verification/flow/phone"] {
            table.add(.post, path)
        }
        table.add(.patch, "/identity/verification/flow/phone")
        table.add(.delete, "/a/self-service/logout/api")
        table.add(.put, "/identity/pki/client/certificates")
        table.add(.get, "/identity/pki/client/certificates/{serialNumber}")
        for path in ["/verify-email", "/revert-email", "/confirm-change", "/reset", "/portal.css", "/openapi.yaml", "/openapi.json",
                     WellKnownRoutes.appleAppSiteAssociation, WellKnownRoutes.assetLinks] {
            table.add(.get, path)
        }
        table.add(.post, "/verify-email")
        table.add(.post, "/revert-email")
        table.add(.post, "/confirm-change")
        table.add(.post, "/reset/answer")
        table.add(.post, "/reset/credential")
        return table
    }()
}
