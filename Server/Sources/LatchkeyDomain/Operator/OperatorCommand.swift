/// What an operator did, as the `command` detail of its `operator.command` event names it. One
/// name for one action whatever the channel (the admin API, the console, the command line): an
/// admin operation is `admin <operationId>` everywhere, and the event's other details say who
/// asked and how (`operatorKey`, `operatorAccount` and `via`, or none on the command line).
public enum OperatorCommand: Sendable, Hashable, CustomStringConvertible {
    /// An operation of the admin document: `admin <operationId>`.
    case admin(AdminOperation)
    /// An import over the admin API, recorded before its first batch: `admin importUsers started`
    /// (its end is `admin importUsers`, with the counts).
    case importStarted
    /// An import's overwrite of one existing user (`--update`, `update=true`): `import update`.
    case importUpdate
    /// `latchkey audit export`: `audit export`.
    case auditExport
    /// An operator key made: `operator key created <id> <role> <name>` (never the key).
    case keyCreated(id: String, role: OperatorRole, name: String)
    /// An operator key revoked (or a revocation refused): `operator key revoked <id>`.
    case keyRevoked(id: String)
    /// A console operator account made (`latchkey operators add`): `operator created <id> <role>`.
    case operatorCreated(id: String, role: OperatorRole)
    /// A console operator's new setup link (`latchkey operators reset`): `operator reset <id>`.
    case operatorReset(id: String)
    /// A console operator's first sign-in, which sets the password and the authenticator: `console setup`.
    case consoleSetup
    /// A console sign-in, refused or not: `console signIn`.
    case consoleSignIn
    /// A console sign-out: `console signOut`.
    case consoleSignOut

    /// The `command` detail.
    public var description: String {
        switch self {
        case .admin(let operation): "admin \(operation.id)"
        case .importStarted: "admin importUsers started"
        case .importUpdate: "import update"
        case .auditExport: "audit export"
        case .keyCreated(let id, let role, let name): "operator key created \(id) \(role.rawValue) \(name)"
        case .keyRevoked(let id): "operator key revoked \(id)"
        case .operatorCreated(let id, let role): "operator created \(id) \(role.rawValue)"
        case .operatorReset(let id): "operator reset \(id)"
        case .consoleSetup: "console setup"
        case .consoleSignIn: "console signIn"
        case .consoleSignOut: "console signOut"
        }
    }

    /// Whether the command reads users (`AdminOperation.readsUsers`): its events carry the reason
    /// `read`, which a user's latest events leave out (`AuditEventFilter.excludingReads`).
    public var readsUsers: Bool {
        if case .admin(let operation) = self { operation.readsUsers } else { false }
    }

    /// The event details that name the command alone.
    public var details: [String: String] { ["command": description] }
}

extension AdminOperation {
    /// The operation that sets a wallet's status: deactivating or reactivating it.
    public static func setting(_ status: UserStatus) -> AdminOperation {
        status == .active ? .reactivateUser : .deactivateUser
    }

    /// The operation that sets a device's status.
    public static func setting(_ status: DeviceStatus) -> AdminOperation {
        switch status {
        case .active: .reactivateDevice
        case .deactivated: .deactivateDevice
        case .suspended: .suspendDevice
        }
    }
}
