/// Every route the server answers, as in the OpenAPI document plus the operational ones.
/// A test checks this table against `openapi.yaml`.
public enum ApplicationRoutes {
    public static let table: RouteTable = {
        var table = RouteTable()
        for path in ["/health", "/ready", "/metrics", "/v1/enrollment/mfa-questions", "/v1/enrollment/password-configuration",
                     "/v1/enrollment/passcode-configuration", "/v1/enrollment/profile-metadata"] {
            table.add(.get, path)
        }
        table.add(.post, "/v1/enrollment/users")
        return table
    }()
}
