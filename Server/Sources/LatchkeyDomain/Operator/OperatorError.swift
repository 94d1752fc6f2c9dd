/// Why a command about operators themselves cannot be carried out (their keys, the console's
/// accounts); a refusal about wallets is a `DomainError`, as on the admin API.
public enum OperatorError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownKey(String)
    case invalidKeyRequest(String)
    case duplicateOperator(String)
    case invalidOperatorRequest(String)

    public var description: String {
        switch self {
        case .unknownKey(let id): "No operator key \(id) that is not revoked."
        case .invalidKeyRequest(let reason): reason
        case .duplicateOperator(let email): "There is an operator with email \(email) already."
        case .invalidOperatorRequest(let reason): reason
        }
    }
}
