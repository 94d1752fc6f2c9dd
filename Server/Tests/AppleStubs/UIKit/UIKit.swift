// Apple's UIKit, as far as the SDK uses it. See ../README.md for how these stubs are written and used.
import Foundation

/// `@MainActor class UIResponder : NSObject`
@MainActor open class UIResponder: NSObject {}

/// `@MainActor class UIApplication : UIResponder`
@MainActor open class UIApplication: UIResponder {
    /// `nonisolated class let protectedDataDidBecomeAvailableNotification: NSNotification.Name`
    nonisolated public static let protectedDataDidBecomeAvailableNotification = NSNotification.Name("UIApplicationProtectedDataDidBecomeAvailable")
    /// `nonisolated class let didBecomeActiveNotification: NSNotification.Name`
    nonisolated public static let didBecomeActiveNotification = NSNotification.Name("UIApplicationDidBecomeActiveNotification")
}

/// `@MainActor class UIView : UIResponder`
@MainActor open class UIView: UIResponder {}

/// `@MainActor class UIWindow : UIView` (AuthenticationServices' `ASPresentationAnchor` on iOS)
@MainActor open class UIWindow: UIView {}
