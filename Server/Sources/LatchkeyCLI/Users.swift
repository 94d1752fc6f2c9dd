import ArgumentParser
import Foundation
import LatchkeyCore
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer

/// `latchkey users …`: see users and restore deactivated wallets and devices, on either engine.
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Administer wallet users.",
        subcommands: [List.self, Show.self, Events.self, Import.self, Lock.self, Unlock.self, Reactivate.self, Deactivate.self, Suspend.self,
                      Verify.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users, newest first.")
        @OptionGroup var options: ServerOptions
        @Option(help: "How many.") var limit = 50
        @Option(help: "How many to skip.") var offset = 0

        func run() async throws {
            try await withOperator(options) { service in
                for user in try await service.users(limit: limit, offset: offset) {
                    print([user.email, user.status.rawValue, user.emailVerified ? "verified" : "unverified",
                           "failures=\(user.failedAttempts)", EnrollmentService.customerURI(user.id)].joined(separator: "\t"))
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one user and its devices.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String

        func run() async throws {
            try await withOperator(options) { service in
                let user = try await service.user(email: email)
                print("""
                    email:            \(user.email)
                    customerUri:      \(EnrollmentService.customerURI(user.id))
                    name:             \(user.firstName ?? "") \(user.lastName ?? "")
                    status:           \(user.status.rawValue) (consecutive failures \(user.failedAttempts))\(user.locked ? ", locked" : "")
                    email verified:   \(user.emailVerified)
                    app verified:     \(user.appInstanceVerified)
                    created:          \(user.createdAt.formatted(.iso8601))
                    last login:       \(user.lastLoginAt?.formatted(.iso8601) ?? "never")
                    """)
                let statistics = try await service.loginStatistics(of: user, days: 30)
                for device in try await service.devices(of: user) {
                    // A device key shows its thumbprint; the label is the app's name for it.
                    print("device \(device.keyThumbprint.map { "key \($0)" } ?? device.deviceID)\t"
                        + "label=\(device.label ?? "-")\t\(device.deviceType ?? "-")\t\(device.status.rawValue)\t"
                        + "app=\(device.applicationVersion ?? "-")\tsdk=\(device.sdkVersion ?? "-")\t"
                        + "failures=\(device.failedAttempts)\tlinked=\(device.linkedAt.formatted(.iso8601))")
                    for entry in statistics[device.deviceID] ?? [] {
                        let failures = entry.failures.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
                        print("  logins (30 days) \(entry.method.rawValue)\tattempts=\(entry.attempts)\tsuccesses=\(entry.successes)\t"
                            + "mfa=\(entry.mfaPrompts)\tfailures=\(failures.isEmpty ? "-" : failures)\t"
                            + "mean=\(entry.totalLatencyMilliseconds / max(entry.attempts, 1)) ms\tmax=\(entry.maximumLatencyMilliseconds) ms")
                    }
                }
            }
        }
    }

    struct Events: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a user's security events (the audit trail), oldest first.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        @Option(help: "How many of the latest events.") var limit = 100

        func run() async throws {
            try await withOperator(options) { service in
                for event in try await service.events(email: email, limit: limit) { print(event.line) }
            }
        }
    }

    struct Reactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Reactivate a wallet or device after deactivation (421, 423) or suspension (503).")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        @Option(help: "A device id: reactivate that device instead of the wallet.") var device: String?
        func run() async throws { try await setStatus(options, email, device: device, wallet: .active, device: .active) }
    }

    struct Lock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lock an account: credential changes answer 424.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        func run() async throws {
            try await withOperator(options) { service in
                try await service.setLocked(email: email, true)
                print("\(email): locked")
            }
        }
    }

    struct Unlock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove every lock: the operator lock (424) and a lockout of the wallet (421) or a device (423).")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        @Option(help: "A device id: unlock that device instead of the wallet.") var device: String?
        func run() async throws {
            if device == nil {
                try await withOperator(options) { service in try await service.setLocked(email: email, false) }
            }
            try await setStatus(options, email, device: device, wallet: .active, device: .active)
        }
    }

    struct Deactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Deactivate a wallet (logins answer 421) or a device (423).")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        @Option(help: "A device id: deactivate that device instead of the wallet.") var device: String?
        func run() async throws { try await setStatus(options, email, device: device, wallet: .deactivated, device: .deactivated) }
    }

    struct Suspend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Suspend a device (logins from it answer 503).")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        @Option(help: "The device id.") var device: String
        func run() async throws {
            try await withOperator(options) { service in
                try await service.setStatus(email: email, device: device, .suspended)
                print("\(email) device \(device): suspended")
            }
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark a user's email and app instance verified.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        func run() async throws {
            try await withOperator(options) { service in
                try await service.verify(email: email)
                print("\(email): email and app instance verified")
            }
        }
    }
}

/// Runs `body` with the operator service over the configured database (migrated first);
/// an `OperatorError` becomes the command's error message.
func withOperator(_ options: ServerOptions, _ body: (OperatorService) async throws -> Void) async throws {
    try await withOperatorStore(options) { store, configuration in
        try await body(OperatorService(store: store, issuer: configuration.issuer))
    }
}

/// Runs `body` with the configured database (migrated first) and the configuration; an
/// `OperatorError` becomes the command's error message.
func withOperatorStore(_ options: ServerOptions, _ body: (any LatchkeyStore, ServerConfiguration) async throws -> Void) async throws {
    let configuration = try options.resolve()
    do {
        try await StoreFactory.withStore(configuration.database, logger: makeLogger(level: .error)) { store in
            try await body(store, configuration)
        }
    } catch let error as OperatorError {
        throw ValidationError(error.description)
    }
}

/// The wallet's status (no device given) or the device's.
private func setStatus(_ options: ServerOptions, _ email: String, device: String?, wallet: UserStatus,
                       device deviceStatus: DeviceStatus) async throws {
    try await withOperator(options) { service in
        if let device {
            try await service.setStatus(email: email, device: device, deviceStatus)
            print("\(email) device \(device): \(deviceStatus.rawValue)")
        } else {
            try await service.setStatus(email: email, wallet)
            print("\(email): \(wallet.rawValue)")
        }
    }
}
