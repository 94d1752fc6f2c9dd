import LatchkeyDomain
import Mustache

/// The console's pages: mustache templates compiled into the binary, every `{{value}}`
/// HTML-escaped; no script, no inline style (the CSP forbids both), one stylesheet.
enum ConsoleTemplates {
    static let layout = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>{{title}} · {{issuer}} console</title>
        <link rel="stylesheet" href="/console/console.css">
        </head>
        <body>
        <a class="skip" href="#content">Skip to content</a>
        {{#operator}}
        <header>
        <nav aria-label="Console">
        <a href="/console">Dashboard</a> <a href="/console/users">Users</a> <a href="/console/events">Events</a>
        <a href="/console/courier">Courier</a>
        </nav>
        <form method="post" action="/console/logout" class="signout">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <span id="who">{{staffEmail}} ({{staffRole}})</span> <button type="submit" id="signout">Sign out</button>
        </form>
        </header>
        {{/operator}}
        <main id="content">
        <h1 id="title">{{title}}</h1>
        {{#notice}}<p class="notice" id="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" id="error" role="alert">{{error}}</p>{{/error}}
        {{$content}}{{/content}}
        </main>
        </body>
        </html>
        """

    static let message = """
        {{<layout}}{{$content}}<p id="message">{{text}}</p>{{#back}}<p><a href="{{back}}">Back</a></p>{{/back}}{{/content}}{{/layout}}
        """

    static let login = """
        {{<layout}}{{$content}}
        <form method="post" action="/console/login" autocomplete="off">
        <input type="hidden" name="csrf" value="{{formCSRF}}">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" required autofocus autocomplete="username" value="{{email}}">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" required autocomplete="current-password">
        <label for="code">Authenticator code</label>
        <input id="code" name="code" type="text" required inputmode="numeric" pattern="[0-9 ]{6,7}" autocomplete="one-time-code">
        <button id="submit" type="submit">Sign in</button>
        </form>
        {{/content}}{{/layout}}
        """

    static let setup = """
        {{<layout}}{{$content}}
        <p>Set up the console account <strong id="account">{{account}}</strong> ({{accountRole}}).</p>
        <ol>
        <li>Add it to an authenticator app (RFC 6238, 6 digits, 30 seconds):
        {{#hasQR}}scan this code with the phone's app,{{{qr}}}{{/hasQR}}
        <a id="otpauth" href="{{uri}}">open in the authenticator</a> on this device, or type the key by hand:
        <code id="secret">{{secret}}</code>
        <details><summary>The full URI</summary><code id="uri">{{uri}}</code></details></li>
        <li>Choose a password of at least 12 characters and enter the app's current code.</li>
        </ol>
        <form method="post" action="/console/setup" autocomplete="off">
        <input type="hidden" name="token" value="{{token}}">
        <input type="hidden" name="csrf" value="{{formCSRF}}">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" required minlength="12" autocomplete="new-password">
        <label for="confirm">Repeat the password</label>
        <input id="confirm" name="confirm" type="password" required minlength="12" autocomplete="new-password">
        <label for="code">Authenticator code</label>
        <input id="code" name="code" type="text" required inputmode="numeric" pattern="[0-9 ]{6,7}" autocomplete="one-time-code">
        <button id="submit" type="submit">Set up</button>
        </form>
        {{/content}}{{/layout}}
        """

    static let dashboard = """
        {{<layout}}{{$content}}
        {{#periods}}
        <section aria-labelledby="period-{{id}}">
        <h2 id="period-{{id}}">{{label}}</h2>
        <div class="charts">
        {{#charts}}
        <figure>
        <figcaption id="chart-{{id}}">{{title}}: {{total}}</figcaption>
        {{{svg}}}
        <table class="visually-hidden"><caption>{{title}}</caption>
        <tr><th scope="col">From</th>{{#series}}<th scope="col">{{name}}</th>{{/series}}</tr>
        {{#rows}}<tr><td>{{label}}</td>{{#values}}<td>{{.}}</td>{{/values}}</tr>{{/rows}}
        </table>
        <p class="legend">{{#series}}<span class="key {{cssClass}}"></span>{{name}} {{/series}}</p>
        </figure>
        {{/charts}}
        </div>
        </section>
        {{/periods}}
        <p class="note">Requests shed by the admission gate come from every server's hourly counts (added every 10 seconds);
        each server's own total is also in its metrics (<code>/metrics</code>, <code>latchkey_hash_admissions_shed_total</code>).</p>
        {{/content}}{{/layout}}
        """

    static let users = """
        {{<layout}}{{$content}}
        <form method="get" action="/console/users" class="search" role="search">
        <label for="q">Email (or its beginning), phone, user id or device key thumbprint</label>
        <input id="q" name="q" type="search" value="{{q}}">
        <label for="externalId">External id</label>
        <input id="externalId" name="externalId" type="search" value="{{externalId}}">
        <label for="state">State</label>
        <select id="state" name="state">{{#states}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/states}}</select>
        <button id="search" type="submit">Search</button>
        </form>
        {{#hasUsers}}
        <table id="users"><caption>Users</caption>
        <tr><th scope="col">Email</th><th scope="col">Name</th><th scope="col">State</th><th scope="col">Registered</th></tr>
        {{#users}}<tr><td><a href="/console/users/{{id}}">{{email}}</a></td><td>{{name}}</td><td>{{state}}</td><td>{{created}}</td></tr>{{/users}}
        </table>
        {{/hasUsers}}
        {{^hasUsers}}{{#searched}}<p id="none">No user matches.</p>{{/searched}}{{/hasUsers}}
        {{#next}}<p><a id="next" href="{{next}}">Next page</a></p>{{/next}}
        {{/content}}{{/layout}}
        """

    static let user = """
        {{<layout}}{{$content}}
        <dl class="facts">
        <dt>Email</dt><dd id="email">{{email}}{{#verified}} (verified){{/verified}}{{^verified}} (not verified){{/verified}}</dd>
        {{#phone}}<dt>Phone</dt><dd>{{phone}}</dd>{{/phone}}
        {{#externalId}}<dt>External id</dt><dd>{{externalId}}</dd>{{/externalId}}
        <dt>Name</dt><dd>{{name}}</dd><dt>User id</dt><dd><code>{{id}}</code></dd>
        <dt>State</dt><dd id="state">{{state}}</dd><dt>Consecutive failures</dt><dd id="failures">{{failures}}</dd>
        <dt>Registered</dt><dd>{{created}}</dd><dt>Last login</dt><dd>{{lastLogin}}</dd>
        </dl>
        <h2>Why it cannot log in</h2>
        {{#hasBlocks}}<ul id="blocks">{{#blocks}}<li><strong>{{reason}}</strong>: {{message}}{{#until}} Until {{until}}.{{/until}}</li>{{/blocks}}</ul>{{/hasBlocks}}
        {{^hasBlocks}}<p id="blocks">Nothing blocks its logins.</p>{{/hasBlocks}}
        {{#canAct}}
        <h2>Actions</h2>
        <ul class="actions" id="actions">{{#actions}}<li><a href="{{href}}" id="action-{{name}}">{{label}}</a></li>{{/actions}}</ul>
        {{/canAct}}
        <h2>Devices</h2>
        <table id="devices"><caption>Linked devices</caption>
        <tr><th scope="col">Device</th><th scope="col">Type, app</th><th scope="col">Status</th><th scope="col">Certificate</th><th scope="col">Linked</th><th scope="col">Last login</th>{{#canAct}}<th scope="col">Actions</th>{{/canAct}}</tr>
        {{#devices}}<tr><td>{{label}} <code>{{id}}</code>{{#thumbprint}}<br>key <code>{{thumbprint}}</code>{{/thumbprint}}</td><td>{{type}} {{app}}</td><td>{{status}}</td><td>{{certificate}}</td><td>{{linked}}</td><td>{{lastLogin}}</td>
        {{#canAct}}<td>{{#actions}}<a href="{{href}}">{{label}}</a> {{/actions}}</td>{{/canAct}}</tr>{{/devices}}
        </table>
        <h2>Second factors</h2>
        <table id="factors"><caption>Questions, passkeys, authenticator app, recovery codes</caption>
        <tr><th scope="col">Factor</th><th scope="col">Kind</th><th scope="col">Enrolled</th><th scope="col">Last used</th><th scope="col">State</th>{{#canAct}}<th scope="col">Actions</th>{{/canAct}}</tr>
        {{#factors}}<tr><td>{{name}} <code>{{id}}</code></td><td>{{kind}}</td><td>{{created}}</td><td>{{lastUsed}}</td><td>{{remaining}}</td>
        {{#canAct}}<td>{{#remove}}<a href="{{remove}}" id="remove-{{id}}">Remove</a>{{/remove}}</td>{{/canAct}}</tr>{{/factors}}
        </table>
        <h2>Sessions</h2>
        <table id="sessions"><caption>Live sessions, most recently used first</caption>
        <tr><th scope="col">Session</th><th scope="col">Device</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Privileged until</th>{{#canAct}}<th scope="col">Actions</th>{{/canAct}}</tr>
        {{#sessions}}<tr><td><code>{{id}}</code>{{#bound}} (key-bound){{/bound}}</td><td>{{device}}</td><td>{{created}}</td><td>{{lastSeen}}</td><td>{{privileged}}</td>
        {{#canAct}}<td><a href="{{end}}" id="end-{{id}}">End</a></td>{{/canAct}}</tr>{{/sessions}}
        </table>
        {{#moreSessions}}<p id="more-sessions">More sessions are live than the 100 most recently used listed here; “End every session” ends them all.</p>{{/moreSessions}}
        <h2>Device tokens</h2>
        {{#hasTokens}}<table id="device-tokens"><caption>Live device tokens, newest first</caption>
        <tr><th scope="col">Token</th><th scope="col">Device</th><th scope="col">Created</th><th scope="col">Expires</th></tr>
        {{#tokens}}<tr><td><code>{{id}}</code></td><td>{{device}}</td><td>{{created}}</td><td>{{expires}}</td></tr>{{/tokens}}
        </table>{{/hasTokens}}
        {{^hasTokens}}<p id="device-tokens">No live device token.</p>{{/hasTokens}}
        <h2>Latest events</h2>
        {{#hasEvents}}<table id="latest-events"><caption>The user's newest events (up to 20; operators' views left out)</caption>
        <tr><th scope="col">When (UTC)</th><th scope="col">Type</th><th scope="col">Outcome</th><th scope="col">By</th><th scope="col">Address</th><th scope="col">Details</th></tr>
        {{#events}}<tr><td>{{when}}</td><td>{{type}}</td><td>{{outcome}}</td><td>{{actor}}</td><td>{{clientIp}}</td><td>{{details}}</td></tr>{{/events}}
        </table>{{/hasEvents}}
        <p><a id="user-events" href="/console/events?userId={{id}}">All its events</a></p>
        {{/content}}{{/layout}}
        """

    static let confirm = """
        {{<layout}}{{$content}}
        <p id="question">{{question}}</p>
        <form method="post" action="/console/users/{{userId}}/actions">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="action" value="{{action}}">
        {{#device}}<input type="hidden" name="device" value="{{device}}">{{/device}}
        {{#session}}<input type="hidden" name="session" value="{{session}}">{{/session}}
        {{#factor}}<input type="hidden" name="factor" value="{{factor}}">{{/factor}}
        <button id="confirm" type="submit" class="{{buttonClass}}">{{button}}</button>
        </form>
        <p><a id="cancel" href="/console/users/{{userId}}">Cancel</a></p>
        {{/content}}{{/layout}}
        """

    static let events = """
        {{<layout}}{{$content}}
        <form method="get" action="/console/events" class="filters">
        <label for="userId">User id</label><input id="userId" name="userId" value="{{userId}}">
        <label for="type">Type</label>
        <select id="type" name="type">{{#types}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/types}}</select>
        <label for="outcome">Outcome</label>
        <select id="outcome" name="outcome">{{#outcomes}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/outcomes}}</select>
        <label for="clientIp">Client address</label><input id="clientIp" name="clientIp" value="{{clientIp}}">
        <label for="since">From (UTC, 2026-11-25T09:00:00Z)</label><input id="since" name="since" value="{{since}}">
        <label for="until">Until (UTC)</label><input id="until" name="until" value="{{until}}">
        <button id="filter" type="submit">Filter</button>
        </form>
        <table id="events"><caption>Events, newest first</caption>
        <tr><th scope="col">When (UTC)</th><th scope="col">Type</th><th scope="col">Outcome</th><th scope="col">User</th><th scope="col">By</th><th scope="col">Address</th><th scope="col">Details</th></tr>
        {{#events}}<tr><td>{{when}}</td><td>{{type}}</td><td>{{outcome}}</td><td>{{#userId}}<a href="/console/users/{{userId}}">{{userId}}</a>{{/userId}}</td><td>{{actor}}</td><td>{{clientIp}}</td><td>{{details}}</td></tr>{{/events}}
        </table>
        {{#next}}<p>{{#short}}<span id="partial">Each page reads a bounded stretch of the trail; filters combined may leave a page short or empty. </span>{{/short}}<a id="next" href="{{next}}">Older events</a></p>{{/next}}
        {{/content}}{{/layout}}
        """

    static let courier = """
        {{<layout}}{{$content}}
        <form method="get" action="/console/courier" class="filters">
        <label for="state">State</label>
        <select id="state" name="state">{{#states}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/states}}</select>
        <button id="filter" type="submit">Show</button>
        </form>
        <table id="messages"><caption>The courier's messages, newest first (never their content)</caption>
        <tr><th scope="col">Created (UTC)</th><th scope="col">Channel</th><th scope="col">To</th><th scope="col">Template</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last error</th></tr>
        {{#messages}}<tr><td>{{created}}</td><td>{{channel}}</td><td>{{recipient}}</td><td>{{template}}</td><td>{{state}}</td><td>{{attempts}}</td><td>{{error}}</td></tr>{{/messages}}
        </table>
        {{#next}}<p><a id="next" href="{{next}}">Older messages</a></p>{{/next}}
        {{/content}}{{/layout}}
        """

    static let stylesheet = """
        body{font-family:system-ui,-apple-system,sans-serif;margin:0;color:#1d1d1f;background:#f5f5f7;line-height:1.4}
        header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.6rem 1rem;background:#1d1d1f;color:#fff}
        header a{color:#fff;margin-right:.8rem}
        header button{width:auto;margin:0 0 0 .5rem;padding:.35rem .7rem;font-size:.95rem}
        .signout{margin:0} #who{overflow-wrap:anywhere}
        main{max-width:72rem;margin:0 auto;padding:1.25rem;background:#fff;min-height:100vh;box-sizing:border-box;overflow-wrap:break-word}
        h1{font-size:1.5rem;margin:.25rem 0 1rem;overflow-wrap:anywhere} h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
        label{display:block;font-weight:600;margin:.8rem 0 .3rem}
        input,select{display:block;width:100%;max-width:28rem;box-sizing:border-box;font-size:1rem;padding:.55rem;border:1px solid #8e8e93;border-radius:.4rem}
        button{margin-top:1rem;font-size:1rem;padding:.6rem 1.2rem;border:0;border-radius:.4rem;background:#0a64d8;color:#fff;cursor:pointer}
        button.danger{background:#c62828}
        a{color:#0a58c2} a:focus,button:focus,input:focus,select:focus{outline:3px solid #ff9f0a;outline-offset:2px}
        .skip{position:absolute;left:-999px} .skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:1}
        .error{color:#c62828} .notice{color:#1b5e20;background:#e8f5e9;padding:.5rem .75rem;border-radius:.4rem}
        table{border-collapse:collapse;width:100%;margin:.5rem 0;font-size:.92rem;display:block;overflow-x:auto}
        caption{text-align:left;font-weight:600;padding:.3rem 0}
        th,td{border-bottom:1px solid #d1d1d6;padding:.4rem .5rem;text-align:left;vertical-align:top}
        code{font-size:.85rem;word-break:break-all}
        dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.3rem 1rem} dt{font-weight:600} dd{margin:0;min-width:0;overflow-wrap:anywhere}
        .actions{display:flex;flex-wrap:wrap;gap:.5rem 1.2rem;padding-left:1.2rem}
        .charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(17rem,1fr));gap:1rem}
        figure{margin:0;border:1px solid #d1d1d6;border-radius:.5rem;padding:.6rem}
        figcaption{font-weight:600;margin-bottom:.3rem}
        svg{width:100%;height:auto} .axis{stroke:#8e8e93;stroke-width:1}
        svg.qr{display:block;width:15rem;max-width:100%;margin:.6rem 0}
        .s0{fill:#0a64d8;background:#0a64d8} .s1{fill:#c62828;background:#c62828}
        .key{display:inline-block;width:.8rem;height:.8rem;margin:0 .3rem 0 .6rem;vertical-align:middle}
        .visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
        .note{color:#6e6e73;font-size:.9rem}
        @media (max-width:40rem){main{padding:.8rem} th,td{padding:.3rem} dl.facts{grid-template-columns:minmax(0,1fr);gap:0} dd{margin-bottom:.5rem}}
        """

    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in [("layout", layout), ("message", message), ("login", login), ("setup", setup), ("dashboard", dashboard),
                             ("users", users), ("user", user), ("confirm", confirm), ("events", events), ("courier", courier)] {
            do { try library.register(HTMLText.template(text), named: name) } catch { preconditionFailure("Console template \(name): \(error)") }
        }
        return library
    }()
}
