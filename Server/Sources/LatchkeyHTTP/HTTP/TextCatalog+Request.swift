import Hummingbird
import LatchkeyDomain

extension TextCatalog {
    /// The texts in the language the request's `Accept-Language` prefers among those the catalogs
    /// hold, else the default language.
    package func texts(for request: Request) -> LocalizedTexts {
        texts(for: LanguagePreference(acceptLanguage: request.headers[.acceptLanguage]))
    }
}
