/// The operator services, each managing one thing and all recording through one `OperatorTrail`:
/// what the admin API's handlers, the console's pages and the command line call, so one act is the
/// same call, the same errors and the same audit event whichever channel asks. Built once
/// (`buildServices`).
public struct OperatorServices: Sendable {
    /// Wallets, their devices and sessions.
    public let users: UserAdministration
    /// Wallets' second factors: the list and the removal of a lost one.
    public let factors: FactorAdministration
    /// The audit trail's reads.
    public let audit: AuditAdministration
    /// The courier's messages and the emails support sends.
    public let courier: CourierAdministration
    /// Operators' API keys.
    public let keys: OperatorKeyAdministration
    /// The import of an issuer's existing users.
    public let imports: ImportAdministration
    /// Records calls the edge refuses (a role below the operation's).
    public let trail: OperatorTrail
}
