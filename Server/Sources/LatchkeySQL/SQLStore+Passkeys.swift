import Foundation
import LatchkeyDomain

/// `PasskeyStore` on both engines.
extension SQLStore {}
