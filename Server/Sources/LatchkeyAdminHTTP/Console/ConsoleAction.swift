import Foundation
import LatchkeyDomain

/// What the console's operator can do to a wallet, each behind a confirmation page: the admin
/// API's actions with the roles the admin document gives them.
struct ConsoleAction: Sendable {
    enum Target: Sendable { case user, device, factor, session }

    let name: String
    let label: String
    let target: Target
    /// Whether the button is drawn as destructive.
    let danger: Bool
    /// The admin API's operation: its role is the action's, and its refusals are recorded under
    /// the same command.
    let operation: AdminOperation

    /// The least role the action needs: its operation's (`x-latchkey-role`).
    var role: OperatorRole { operation.role }

    static let all: [ConsoleAction] = [
        .init(name: "unlock", label: "Unlock", target: .user, danger: false, operation: .unlockUser),
        .init(name: "lock", label: "Lock credential changes", target: .user, danger: true, operation: .lockUser),
        .init(name: "deactivate", label: "Deactivate the wallet", target: .user, danger: true, operation: .deactivateUser),
        .init(name: "reactivate", label: "Reactivate the wallet", target: .user, danger: false, operation: .reactivateUser),
        .init(name: "endSessions", label: "End every session", target: .user, danger: true, operation: .endUserSessions),
        .init(name: "resendVerification", label: "Resend the verification email", target: .user, danger: false,
              operation: .resendVerification),
        .init(name: "passwordReset", label: "Send a password reset link", target: .user, danger: false,
              operation: .sendResetLink),
        .init(name: "passcodeReset", label: "Send a PIN reset link", target: .user, danger: false, operation: .sendResetLink),
        .init(name: "markVerified", label: "Mark the email verified", target: .user, danger: false, operation: .markVerified),
        .init(name: "erase", label: "Erase the user", target: .user, danger: true, operation: .eraseUser),
        .init(name: "suspendDevice", label: "Suspend", target: .device, danger: true, operation: .suspendDevice),
        .init(name: "deactivateDevice", label: "Deactivate", target: .device, danger: true, operation: .deactivateDevice),
        .init(name: "reactivateDevice", label: "Reactivate", target: .device, danger: false, operation: .reactivateDevice),
        .init(name: "unlinkDevice", label: "Unlink", target: .device, danger: true, operation: .unlinkDevice),
        .init(name: "removeFactor", label: "Remove", target: .factor, danger: true, operation: .removeUserFactor),
        .init(name: "endSession", label: "End", target: .session, danger: true, operation: .endSession),
    ]

    static func named(_ name: String) -> ConsoleAction? { all.first { $0.name == name } }

    /// The confirmation's question.
    func question(email: String, device: String?, session: String?, factor: String? = nil) -> String {
        switch name {
        case "unlock": "Lift the locks of \(email)'s wallet (the failures, a deactivation they caused, the smart lockout)?"
        case "lock": "Lock credential changes of \(email)'s wallet?"
        case "deactivate": "Deactivate \(email)'s wallet? No login works and its sessions end until it is reactivated."
        case "reactivate": "Reactivate \(email)'s wallet and forgive its failures?"
        case "endSessions": "End every session and device token of \(email)? The apps must log in again."
        case "resendVerification": "Send a new verification link to \(email)?"
        case "passwordReset": "Send \(email) a link to reset the password?"
        case "passcodeReset": "Send \(email) a link to reset the PIN?"
        case "markVerified": "Mark \(email) as verified without the link?"
        case "erase": "Erase \(email)? The identity, credentials, devices and sessions are deleted for good; "
            + "the audit trail keeps only the user id."
        case "suspendDevice": "Suspend device \(device ?? "")? Its sessions end; it can be reactivated."
        case "deactivateDevice": "Deactivate device \(device ?? "")? Its sessions end and its certificates are revoked."
        case "reactivateDevice": "Reactivate device \(device ?? "")?"
        case "unlinkDevice": "Unlink device \(device ?? "") from \(email)? Its sessions, tokens and certificates end."
        case "removeFactor": "Remove the factor \(factor ?? "") of \(email)? The customer gets a security notice; "
            + "it may remove the wallet's last factor for a new phone."
        default: "End session \(session ?? "") of \(email)?"
        }
    }

    /// Does it, as `call`. Throws what the operator services throw.
    func perform(userID: String, device: String?, session: String?, factor: String? = nil, operators: OperatorServices,
                 call: OperatorCall) async throws {
        let device = device ?? "", session = session ?? ""
        switch name {
        case "unlock": try await operators.users.unlock(.id(userID), for: call)
        case "lock": try await operators.users.lock(.id(userID), for: call)
        case "deactivate": try await operators.users.setStatus(.id(userID), .deactivated, for: call)
        case "reactivate": try await operators.users.setStatus(.id(userID), .active, for: call)
        case "endSessions": try await operators.users.endSessions(.id(userID), for: call)
        case "resendVerification": try await operators.courier.resendVerification(.id(userID), for: call)
        case "passwordReset": try await operators.courier.sendResetLink(.id(userID), .password, for: call)
        case "passcodeReset": try await operators.courier.sendResetLink(.id(userID), .passcode, for: call)
        case "markVerified": try await operators.users.markVerified(.id(userID), for: call)
        case "erase": try await operators.users.erase(.id(userID), for: call)
        case "suspendDevice": try await operators.users.setStatus(.id(userID), device: device, .suspended, for: call)
        case "deactivateDevice": try await operators.users.setStatus(.id(userID), device: device, .deactivated, for: call)
        case "reactivateDevice": try await operators.users.setStatus(.id(userID), device: device, .active, for: call)
        case "unlinkDevice": try await operators.users.unlink(.id(userID), device: device, for: call)
        case "removeFactor": try await operators.factors.remove(.id(userID), factor: factor ?? "", for: call)
        default: try await operators.users.endSession(.id(userID), sessionID: session, for: call)
        }
    }

    /// What the user page says after it.
    var done: String {
        switch name {
        case "erase": "The user was erased."
        case "resendVerification", "passwordReset", "passcodeReset": "The email is on its way."
        default: "Done: \(label.prefix(1).lowercased() + label.dropFirst())."
        }
    }
}
