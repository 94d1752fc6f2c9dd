import Foundation
import LatchkeyDomain

/// What the console's operator can do to a wallet, each behind a confirmation page: the admin
/// API's actions with the roles it gives them.
struct ConsoleAction: Sendable {
    enum Target: Sendable { case user, device, session }

    let name: String
    let label: String
    let role: OperatorRole
    let target: Target
    /// Whether the button is drawn as destructive.
    let danger: Bool
    /// The admin API's operation: its refusals are recorded under the same command.
    let command: String

    static let all: [ConsoleAction] = [
        .init(name: "unlock", label: "Unlock", role: .support, target: .user, danger: false, command: "unlockUser"),
        .init(name: "lock", label: "Lock credential changes", role: .support, target: .user, danger: true, command: "lockUser"),
        .init(name: "deactivate", label: "Deactivate the wallet", role: .support, target: .user, danger: true, command: "deactivateUser"),
        .init(name: "reactivate", label: "Reactivate the wallet", role: .support, target: .user, danger: false, command: "reactivateUser"),
        .init(name: "endSessions", label: "End every session", role: .support, target: .user, danger: true, command: "endUserSessions"),
        .init(name: "resendVerification", label: "Resend the verification email", role: .support, target: .user, danger: false,
              command: "resendVerification"),
        .init(name: "passwordReset", label: "Send a password reset link", role: .support, target: .user, danger: false,
              command: "sendResetLink"),
        .init(name: "passcodeReset", label: "Send a PIN reset link", role: .support, target: .user, danger: false, command: "sendResetLink"),
        .init(name: "markVerified", label: "Mark the email verified", role: .support, target: .user, danger: false, command: "markVerified"),
        .init(name: "erase", label: "Erase the user", role: .admin, target: .user, danger: true, command: "eraseUser"),
        .init(name: "suspendDevice", label: "Suspend", role: .support, target: .device, danger: true, command: "suspendDevice"),
        .init(name: "deactivateDevice", label: "Deactivate", role: .support, target: .device, danger: true, command: "deactivateDevice"),
        .init(name: "reactivateDevice", label: "Reactivate", role: .support, target: .device, danger: false, command: "reactivateDevice"),
        .init(name: "unlinkDevice", label: "Unlink", role: .support, target: .device, danger: true, command: "unlinkDevice"),
        .init(name: "endSession", label: "End", role: .support, target: .session, danger: true, command: "endSession"),
    ]

    static func named(_ name: String) -> ConsoleAction? { all.first { $0.name == name } }

    /// The confirmation's question.
    func question(email: String, device: String?, session: String?) -> String {
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
        default: "End session \(session ?? "") of \(email)?"
        }
    }

    /// Does it, as `call`. Throws what `AdminService` throws.
    func perform(userID: String, device: String?, session: String?, admin: AdminService, call: OperatorCall) async throws {
        let device = device ?? "", session = session ?? ""
        switch name {
        case "unlock": try await admin.unlock(userID: userID, for: call)
        case "lock": try await admin.lock(userID: userID, for: call)
        case "deactivate": try await admin.setStatus(userID: userID, .deactivated, for: call)
        case "reactivate": try await admin.setStatus(userID: userID, .active, for: call)
        case "endSessions": try await admin.endSessions(userID: userID, for: call)
        case "resendVerification": try await admin.resendVerification(userID: userID, for: call)
        case "passwordReset": try await admin.sendResetLink(userID: userID, .password, for: call)
        case "passcodeReset": try await admin.sendResetLink(userID: userID, .passcode, for: call)
        case "markVerified": try await admin.markVerified(userID: userID, for: call)
        case "erase": try await admin.erase(userID: userID, for: call)
        case "suspendDevice": try await admin.setStatus(userID: userID, device: device, .suspended, for: call)
        case "deactivateDevice": try await admin.setStatus(userID: userID, device: device, .deactivated, for: call)
        case "reactivateDevice": try await admin.setStatus(userID: userID, device: device, .active, for: call)
        case "unlinkDevice": try await admin.unlink(userID: userID, device: device, for: call)
        default: try await admin.endSession(userID: userID, sessionID: session, for: call)
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
