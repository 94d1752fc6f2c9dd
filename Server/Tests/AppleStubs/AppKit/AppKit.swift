// Apple's AppKit, as far as the SDK uses it. See ../README.md for how these stubs are written and used.
import Foundation

extension NSNotification.Name {
    /// `static let NSApplicationProtectedDataDidBecomeAvailable: NSNotification.Name` (macOS 12)
    public static let NSApplicationProtectedDataDidBecomeAvailable = NSNotification.Name("NSApplicationProtectedDataDidBecomeAvailableNotification")
}

/// `@MainActor class NSResponder : NSObject`
@MainActor open class NSResponder: NSObject {}

/// `@MainActor class NSWindow : NSResponder` (AuthenticationServices' `ASPresentationAnchor` on macOS)
@MainActor open class NSWindow: NSResponder {}
