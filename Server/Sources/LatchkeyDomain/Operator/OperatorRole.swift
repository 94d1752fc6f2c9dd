/// What an operator may do, each role including the one before it: a `viewer` reads users,
/// sessions, events and the courier; `support` also acts on users, devices and sessions (lock,
/// unlock, end sessions, resend links); `admin` also erases users, imports and manages keys.
public enum OperatorRole: String, Sendable, CaseIterable, Codable, Comparable {
    case viewer, support, admin

    /// Whether this role may do what `required` may.
    public func includes(_ required: OperatorRole) -> Bool { self >= required }

    public static func < (lhs: OperatorRole, rhs: OperatorRole) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
