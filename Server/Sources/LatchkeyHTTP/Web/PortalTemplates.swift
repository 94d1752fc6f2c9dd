import LatchkeyDomain
import Mustache

/// The mustache templates of the server-rendered pages. They are compiled into the binary so a
/// single executable serves them; every `{{value}}` is HTML-escaped by `HTMLText`.
package enum PortalTemplates {
    package static let layout = """
        <!doctype html>
        <html lang="{{lang}}">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>{{title}} · {{issuer}}</title>
        <link rel="stylesheet" href="/portal.css">
        </head>
        <body>
        <main>
        <p class="issuer">{{issuer}}</p>
        <h1 id="title">{{title}}</h1>
        {{$content}}{{/content}}
        </main>
        </body>
        </html>
        """

    /// A page that only explains: success, a used or expired link, a verified address.
    package static let message = """
        {{<layout}}{{$content}}<p id="message">{{text}}</p>{{/content}}{{/layout}}
        """

    /// The question of a reset link.
    package static let question = """
        {{<layout}}{{$content}}
        <p>{{intro}}</p>
        <form method="post" action="/reset/answer" autocomplete="off">
        <input type="hidden" name="token" value="{{token}}">
        <input type="hidden" name="csrf" value="{{csrf}}">
        {{#question}}
        <label for="answer">{{question}}</label>
        {{#error}}<p class="error" id="error" role="alert">{{error}}</p>{{/error}}
        <input id="answer" name="answer" type="text" required autofocus autocapitalize="off" spellcheck="false"
         {{#error}}aria-invalid="true" aria-describedby="error"{{/error}}>
        {{/question}}
        {{^question}}<p>{{noQuestion}}</p>{{/question}}
        <button id="submit" type="submit">{{continue}}</button>
        </form>
        {{/content}}{{/layout}}
        """

    /// The form for the new password or PIN.
    package static let credential = """
        {{<layout}}{{$content}}
        <form method="post" action="/reset/credential" autocomplete="off">
        <input type="hidden" name="grant" value="{{grant}}">
        <input type="hidden" name="csrf" value="{{csrf}}">
        {{#error}}<p class="error" id="error" role="alert">{{error}}</p>{{/error}}
        <label for="new">{{newLabel}}</label>
        <input id="new" name="new" type="password" required autofocus autocomplete="new-password"
         {{#numeric}}inputmode="numeric"{{/numeric}} aria-describedby="rules">
        <label for="confirm">{{repeatLabel}}</label>
        <input id="confirm" name="confirm" type="password" required autocomplete="new-password"
         {{#numeric}}inputmode="numeric"{{/numeric}}>
        <ul id="rules" class="rules" aria-label="{{rulesLabel}}">{{#rules}}<li>{{.}}</li>{{/rules}}</ul>
        <button id="submit" type="submit">{{setLabel}}</button>
        </form>
        {{/content}}{{/layout}}
        """

    /// The confirmation an emailed link opens (email verification, email-change revert). Opening
    /// the link changes nothing, since mail scanners open links too; the button posts the form that acts.
    package static let confirm = """
        {{<layout}}{{$content}}
        <p id="message">{{text}}</p>
        <form method="post" action="{{action}}" autocomplete="off">
        <input type="hidden" name="token" value="{{token}}">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button id="submit" type="submit">{{button}}</button>
        </form>
        {{/content}}{{/layout}}
        """

    package static let stylesheet = """
        body{font-family:system-ui,-apple-system,sans-serif;margin:0;color:#1d1d1f;background:#f5f5f7}
        main{max-width:30rem;margin:0 auto;padding:2rem 1.25rem;background:#fff;min-height:100vh;box-sizing:border-box}
        h1{font-size:1.5rem;margin:.25rem 0 1rem}
        .issuer{color:#6e6e73;margin:0;font-size:.9rem}
        label{display:block;font-weight:600;margin:1rem 0 .35rem}
        input{display:block;width:100%;box-sizing:border-box;font-size:1.1rem;padding:.7rem;border:1px solid #c7c7cc;border-radius:.5rem}
        input[aria-invalid=true]{border-color:#c62828}
        button{margin-top:1.25rem;width:100%;font-size:1.1rem;padding:.8rem;border:0;border-radius:.5rem;background:#0a64d8;color:#fff}
        .error{color:#c62828;margin:.5rem 0}
        .rules{color:#6e6e73;font-size:.9rem;padding-left:1.2rem}
        """

    /// The compiled library.
    package static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in [("layout", layout), ("message", message), ("question", question), ("credential", credential),
                             ("confirm", confirm)] {
            do { try library.register(HTMLText.template(text), named: name) } catch { preconditionFailure("Template \(name): \(error)") }
        }
        return library
    }()
}
