import Foundation
import LatchkeyDomain

/// `OneTimeFactorStore` on both engines.
extension SQLStore {}
