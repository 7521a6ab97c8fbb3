import Foundation

/// Which proxy a request goes through, from the environment variables curl reads.
///
/// - **Variables.** `http_proxy` for `http` (and `ws`) requests: lowercase only, as curl reads
///   it, because a CGI program's environment carries every request header as `HTTP_…`, so a
///   client's `Proxy:` header would arrive as `HTTP_PROXY` and redirect the server's own
///   outgoing requests (the "httpoxy" hole). `https_proxy`, then `HTTPS_PROXY`, for `https`
///   (and `wss`). `all_proxy`, then `ALL_PROXY`, for either when its own is unset. `no_proxy`,
///   then `NO_PROXY`, for the hosts to reach directly. Lowercase is read first, as curl does.
///   curl's `ws_proxy` and `wss_proxy` are not read.
/// - **Empty values** mean unset: the next variable in that order is read.
/// - **Proxy values.** `host`, `host:port`, `http://host:port`, `http://user:password@host:port/`
///   (the path is ignored), `[IPv6]:port`. Without a port, 1080, curl's default for every
///   proxy. The user and password are percent-decoded and become a `Proxy-Authorization: Basic`
///   value; a user without a password gets an empty one, as curl sends.
/// - **Unsupported proxies.** This client speaks plain HTTP to its proxy. A proxy with another
///   scheme (`https://`, TLS to the proxy; `socks5://`, `socks4://`…) or a value that does not
///   parse is ignored, not replaced by a later variable: requests of that scheme connect
///   directly rather than through a proxy the user did not pick. What was ignored, and why, is
///   listed in `unsupported` (credentials masked) for diagnostics.
/// - **No implicit exclusions.** `localhost` and `127.0.0.1` go through the proxy unless
///   `no_proxy` names them, as with curl; names are never resolved to compare with addresses.
///
/// `no_proxy`'s rules are `NoProxyRule`'s.
///
/// ```swift
/// let proxies = HTTPProxyEnvironment()
/// if let proxy = proxies.proxy(scheme: "https", host: "api.example.com", port: 443) { … }
/// ```
package struct HTTPProxyEnvironment: Sendable, Equatable {
    /// An HTTP proxy to send requests through.
    package struct Proxy: Sendable, Hashable, CustomStringConvertible {
        /// The proxy's host name or address (an IPv6 address without brackets), lowercased.
        package var host: String
        /// The proxy's TCP port.
        package var port: Int
        /// The `Proxy-Authorization` value from the URL's user and password:
        /// `Basic base64(user:password)`, or nil when the URL has none.
        package var authorization: String?

        /// A proxy at `host:port`.
        ///
        /// - Parameters:
        ///   - host: The host name or address, an IPv6 address without brackets.
        ///   - port: The TCP port.
        ///   - authorization: The `Proxy-Authorization` value to send, if any.
        package init(host: String, port: Int, authorization: String? = nil) {
            self.host = host
            self.port = port
            self.authorization = authorization
        }

        /// The proxy as `host:port`, without its credentials, for logs.
        package var description: String {
            let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            return authorization == nil ? address : "\(address) (with credentials)"
        }
    }

    /// The port of a proxy whose value names none: 1080, as curl uses for every proxy type.
    package static let defaultProxyPort = 1080

    /// The proxy for `http` and `ws` requests: `http_proxy`, else `all_proxy`/`ALL_PROXY`.
    package var http: Proxy?
    /// The proxy for `https` and `wss` requests: `https_proxy`/`HTTPS_PROXY`, else
    /// `all_proxy`/`ALL_PROXY`.
    package var https: Proxy?
    /// The hosts to reach directly: `no_proxy`, else `NO_PROXY`.
    package var noProxy: [NoProxyRule]
    /// The values ignored, as `name=value: reason` with any credentials masked: proxies of an
    /// unsupported scheme or that do not parse, and `no_proxy` entries that do not parse.
    package var unsupported: [String]

    /// The proxies that an environment sets.
    ///
    /// - Parameter environment: The environment variables; the process's by default. Tests pass
    ///   their own.
    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        var unsupported: [String] = []
        /// The first of `names` set to something other than spaces, with its name.
        func firstSet(_ names: [String]) -> (name: String, value: String)? {
            for name in names {
                if let value = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty {
                    return (name, value)
                }
            }
            return nil
        }
        /// The proxy of the first variable set, or nil (noting why when its value is ignored).
        func proxy(_ names: [String]) -> Proxy? {
            guard let (name, value) = firstSet(names) else { return nil }
            switch Self.parseProxy(value) {
            case .success(let proxy):
                return proxy
            case .failure(let reason):
                // all_proxy feeds both schemes: note it once.
                let note = "\(name)=\(Self.masked(value)): \(reason.text)"
                if !unsupported.contains(note) { unsupported.append(note) }
                return nil
            }
        }
        http = proxy(["http_proxy", "all_proxy", "ALL_PROXY"])
        https = proxy(["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"])
        if let (name, value) = firstSet(["no_proxy", "NO_PROXY"]) {
            let (rules, invalid) = NoProxyRule.parseList(value)
            noProxy = rules
            unsupported += invalid.map { "\(name) entry \"\($0)\": not a host, address, network or \"*\"" }
        } else {
            noProxy = []
        }
        self.unsupported = unsupported
    }

    /// Proxies given directly, as if from the environment.
    ///
    /// - Parameters:
    ///   - http: The proxy for `http` and `ws` requests.
    ///   - https: The proxy for `https` and `wss` requests.
    ///   - noProxy: The hosts to reach directly.
    package init(http: Proxy?, https: Proxy?, noProxy: [NoProxyRule] = []) {
        self.http = http
        self.https = https
        self.noProxy = noProxy
        self.unsupported = []
    }

    /// The proxy for a request to `scheme://host:port`, or nil to connect directly.
    ///
    /// - Parameters:
    ///   - scheme: The request's scheme, case-insensitive: `http` and `ws` use `http`, `https` and
    ///     `wss` use `https`; any other connects directly.
    ///   - host: The request's host: a name, or an address with or without IPv6 brackets.
    ///   - port: The port the request connects to, the scheme's default included (`no_proxy`
    ///     entries with a port compare against it).
    /// - Returns: The proxy, or nil when none is set for the scheme or `no_proxy` matches.
    package func proxy(scheme: String, host: String, port: Int) -> Proxy? {
        let selected: Proxy?
        switch scheme.lowercased() {
        case "http", "ws": selected = http
        case "https", "wss": selected = https
        default: selected = nil
        }
        guard let selected else { return nil }
        let target = NoProxyRule.Target(host)
        return noProxy.contains { $0.matches(target, port: port) } ? nil : selected
    }

    /// Why a proxy value is ignored.
    private enum ProxyValueProblem: Error {
        /// A scheme other than `http`.
        case unsupportedScheme(String)
        /// The value does not parse: what is wrong.
        case invalid(String)

        /// The reason in words.
        var text: String {
            switch self {
            case .unsupportedScheme(let scheme): "unsupported proxy scheme \"\(scheme)\" (only http:// is)"
            case .invalid(let reason): reason
            }
        }
    }

    /// Parses a proxy variable's value: `[http://][user[:password]@]host[:port][/…]`.
    private static func parseProxy(_ value: String) -> Result<Proxy, ProxyValueProblem> {
        var rest = Substring(value)
        if let separator = rest.range(of: "://") {
            let scheme = rest[..<separator.lowerBound].lowercased()
            guard scheme == "http" else { return .failure(.unsupportedScheme(scheme)) }
            rest = rest[separator.upperBound...]
        }
        // The authority ends where a path, query or fragment starts; those mean nothing here.
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var hostAndPort = authority
        var authorization: String?
        // The last @ ends the user information: a password may hold an unencoded @.
        if let at = authority.lastIndex(of: "@") {
            hostAndPort = authority[authority.index(after: at)...]
            let userInformation = authority[..<at]
            let user = userInformation.prefix { $0 != ":" }
            let password = userInformation.dropFirst(user.count + 1)
            guard let userBytes = percentDecoded(user), let passwordBytes = percentDecoded(password) else {
                return .failure(.invalid("bad percent-encoding in the user or password"))
            }
            if !userBytes.isEmpty || !passwordBytes.isEmpty {
                let credentials = Data(userBytes + Array(":".utf8) + passwordBytes)
                authorization = "Basic " + credentials.base64EncodedString()
            }
        }
        guard let (host, port) = hostAndPort.splitHostAndPort() else {
            return .failure(.invalid("not a host and port"))
        }
        if host.hasPrefix("[") {
            // Bracketed: an IPv6 address, which the connection wants without its brackets.
            let address = host.dropFirst().dropLast()
            guard ProxyIPAddress.bytes(of: address) != nil else { return .failure(.invalid("bad IPv6 address")) }
            return .success(
                Proxy(host: address.lowercased(), port: port ?? defaultProxyPort, authorization: authorization))
        }
        guard !host.isEmpty, host.allSatisfy(isHostCharacter) else { return .failure(.invalid("bad host")) }
        return .success(Proxy(host: host.lowercased(), port: port ?? defaultProxyPort, authorization: authorization))
    }

    /// Whether a character may appear in a host name: ASCII letters, digits and URI
    /// sub-delimiters, not the separators, spaces or controls that would mean a malformed value.
    private static func isHostCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue, ascii > 0x20, ascii < 0x7F else { return false }
        return !"/?#@[]\\\"<>^`{|}:".contains(character)
    }

    /// The bytes of percent-encoded text, or nil if a `%` is not followed by two hex digits.
    private static func percentDecoded(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// The value of an ASCII hex digit.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The value with any user information replaced by `***`, so diagnostics carry no password.
    private static func masked(_ value: String) -> String {
        guard let at = value.lastIndex(of: "@") else { return value }
        let schemeEnd = value.range(of: "://").map(\.upperBound) ?? value.startIndex
        guard schemeEnd <= at else { return "***" + String(value[at...]) }
        return String(value[..<schemeEnd]) + "***" + String(value[at...])
    }
}

extension HTTPProxyEnvironment {
    /// One entry of `no_proxy`: hosts to reach without the proxy.
    ///
    /// The list is separated by commas and whitespace; entries are case-insensitive. As curl
    /// (7.86 and later) reads them:
    /// - `*` matches every host.
    /// - A name matches itself and every name under it: `example.com` and `.example.com` both
    ///   match `example.com` and `api.example.com`, not `myexample.com`. A trailing dot, on the
    ///   entry or the host, is ignored. `*.example.com` is read as `.example.com` (curl would
    ///   not match it at all; other tools do, and it is surely what was meant).
    /// - An IP address matches that address, compared as numbers (`::1` matches
    ///   `0:0:0:0:0:0:0:1`); IPv6 with or without brackets (`[::1]`, `::1`). With `/bits`
    ///   (CIDR: `10.0.0.0/8`, `fe80::/10`) it matches every address whose first bits are
    ///   the same. An IPv4 entry also matches that address written IPv4-mapped (`::ffff:10.1.2.3`).
    ///   Names never match addresses, and neither is resolved into the other.
    /// - `:port` after a name, an address in brackets or `*` (`example.com:8080`, `[::1]:8080`)
    ///   limits the entry to requests to that port. curl compares such an entry with the host
    ///   alone, so it never matches there; matching the port (as Go does) is what it says.
    ///   An IPv6 address without brackets has no port.
    /// Entries that fit none of these are dropped (and listed in `unsupported`).
    package struct NoProxyRule: Sendable, Equatable {
        /// What hosts an entry names.
        package enum Pattern: Sendable, Equatable {
            /// `*`: every host.
            case everyHost
            /// A domain, lowercased, without leading or trailing dots: it and its subdomains.
            case domain(String)
            /// An IPv4 (4 bytes) or IPv6 (16 bytes) network: addresses whose first
            /// `prefixLength` bits are `address`'s.
            case network(address: [UInt8], prefixLength: Int)
        }

        /// The hosts matched.
        package var pattern: Pattern
        /// The only port matched, or nil for every port.
        package var port: Int?

        /// A rule matching `pattern`, on `port` only if given.
        ///
        /// - Parameters:
        ///   - pattern: The hosts matched.
        ///   - port: The only port matched, or nil for all.
        package init(pattern: Pattern, port: Int? = nil) {
            self.pattern = pattern
            self.port = port
        }

        /// The rule an entry states, or nil if it states none (see the type's documentation).
        ///
        /// - Parameter entry: One entry, without the separators around it.
        package init?(_ entry: some StringProtocol) {
            guard let (host, port) = Substring(entry).splitHostAndPort() else { return nil }
            if host.hasPrefix("[") {
                // A bracketed IPv6 address, possibly with bits: [fe80::]/10 is not accepted,
                // [fe80::/10] is, as the brackets hold the whole host part.
                guard let network = Self.network(host.dropFirst().dropLast()), network.address.count == 16 else {
                    return nil
                }
                self.init(pattern: .network(address: network.address, prefixLength: network.prefixLength), port: port)
                return
            }
            if host == "*" {
                self.init(pattern: .everyHost, port: port)
                return
            }
            if let network = Self.network(host) {
                // An IPv6 address cannot carry a port without brackets: its colons are its own.
                self.init(pattern: .network(address: network.address, prefixLength: network.prefixLength), port: port)
                return
            }
            var name = host.lowercased()[...]
            if name.hasPrefix("*.") { name = name.dropFirst() }
            if name.hasPrefix(".") { name = name.dropFirst() }
            if name.hasSuffix(".") { name = name.dropLast() }
            // Wildcards inside a name, stray separators and what only addresses hold make no name.
            guard !name.isEmpty, !name.contains(where: { "*/:[]@%".contains($0) || $0.isWhitespace }) else {
                return nil
            }
            self.init(pattern: .domain(String(name)), port: port)
        }

        /// The rules of a `no_proxy` value, and the entries that state none.
        ///
        /// - Parameter value: The list, separated by commas and whitespace.
        /// - Returns: The rules in order, and the entries dropped.
        package static func parseList(_ value: String) -> (rules: [NoProxyRule], invalid: [String]) {
            var rules: [NoProxyRule] = []
            var invalid: [String] = []
            for entry in value.split(whereSeparator: { $0 == "," || $0.isWhitespace }) {
                if let rule = NoProxyRule(entry) {
                    rules.append(rule)
                } else {
                    invalid.append(String(entry))
                }
            }
            return (rules, invalid)
        }

        /// A request's host, prepared once for every rule.
        package struct Target: Sendable, Equatable {
            /// The host lowercased, without brackets, zone or trailing dot.
            package var name: String
            /// The host's address bytes if it is an IP address (4 or 16 bytes), else nil.
            package var address: [UInt8]?

            /// The target for a request's host.
            ///
            /// - Parameter host: A name, or an address with or without IPv6 brackets.
            package init(_ host: String) {
                var name = host.lowercased()[...]
                if name.hasPrefix("[") && name.hasSuffix("]") && name.count >= 2 { name = name.dropFirst().dropLast() }
                // A zone (fe80::1%eth0) names the interface, not the address.
                if name.contains(":"), let percent = name.firstIndex(of: "%") { name = name[..<percent] }
                if name.hasSuffix(".") { name = name.dropLast() }
                self.name = String(name)
                self.address = ProxyIPAddress.bytes(of: name)
            }
        }

        /// Whether the rule takes a request to `target` on `port` off the proxy.
        ///
        /// - Parameters:
        ///   - target: The request's host.
        ///   - port: The port it connects to.
        /// - Returns: True to connect directly.
        package func matches(_ target: Target, port: Int) -> Bool {
            if let only = self.port, only != port { return false }
            switch pattern {
            case .everyHost:
                return true
            case .domain(let domain):
                guard target.address == nil else { return false }
                return target.name == domain
                    || (target.name.hasSuffix(domain) && target.name.dropLast(domain.count).hasSuffix("."))
            case .network(let network, let prefixLength):
                guard var address = target.address else { return false }
                if network.count == 4 && address.count == 16
                    && address.prefix(12).elementsEqual(ProxyIPAddress.mappedPrefix)
                {
                    address = Array(address.suffix(4))
                }
                return address.count == network.count
                    && ProxyIPAddress.prefix(of: address, equalsPrefixOf: network, bits: prefixLength)
            }
        }

        /// An address with optional `/bits`, or nil if `text` is not one (or the bits are
        /// more than the address has).
        private static func network(_ text: Substring) -> (address: [UInt8], prefixLength: Int)? {
            guard let slash = text.firstIndex(of: "/") else {
                return ProxyIPAddress.bytes(of: text).map { ($0, $0.count * 8) }
            }
            let bitsText = text[text.index(after: slash)...]
            guard let address = ProxyIPAddress.bytes(of: text[..<slash]), !bitsText.isEmpty, bitsText.count <= 3,
                bitsText.allSatisfy({ $0.isASCII && $0.isNumber }), let bits = Int(bitsText), bits <= address.count * 8
            else { return nil }
            return (address, bits)
        }
    }
}

/// IPv4 and IPv6 address parsing and comparison for proxy rules, in pure Swift so that it reads
/// the same on every platform.
private enum ProxyIPAddress {
    /// The first 12 bytes of an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, RFC 4291 §2.5.5.2).
    static let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]

    /// The bytes of an IPv4 (4) or IPv6 (16, no brackets or zone) address, or nil.
    static func bytes(of text: Substring) -> [UInt8]? {
        text.contains(":") ? ipv6(Array(text.utf8)[...]) : ipv4(Array(text.utf8)[...])
    }

    /// The bytes of a dotted-quad IPv4 address: four decimal numbers 0...255 without leading
    /// zeros (which some parsers read as octal), as inet_pton reads it.
    static func ipv4(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        let parts = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count),
                part.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                part.count == 1 || part.first != UInt8(ascii: "0")
            else { return nil }
            let value = part.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            guard value <= 255 else { return nil }
            bytes.append(UInt8(value))
        }
        return bytes
    }

    /// The bytes of an IPv6 address in RFC 4291 §2.2 text: eight groups of up to four hex
    /// digits, `::` once for a run of zero groups, and optionally an IPv4 address last.
    static func ipv6(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        let colon = UInt8(ascii: ":")
        var groups: [UInt16] = []
        var gap: Int?  // where `::` stands among the groups
        var index = text.startIndex
        if text.starts(with: [colon, colon]) {
            gap = 0
            index += 2
        } else if text.first == colon {
            return nil
        }
        while index < text.endIndex {
            var end = index
            var value = 0
            while end < text.endIndex, end - index < 5, let digit = hexDigit(text[end]) {
                value = value << 4 | digit
                end += 1
            }
            if end < text.endIndex && text[end] == UInt8(ascii: ".") {
                // An IPv4 address ends the text and counts as two groups.
                guard groups.count <= 6, let ipv4 = ipv4(text[index...]) else { return nil }
                groups.append(UInt16(ipv4[0]) << 8 | UInt16(ipv4[1]))
                groups.append(UInt16(ipv4[2]) << 8 | UInt16(ipv4[3]))
                break
            }
            guard end > index, end - index <= 4, groups.count < 8 else { return nil }
            groups.append(UInt16(value))
            index = end
            guard index < text.endIndex else { break }
            guard text[index] == colon else { return nil }
            index += 1
            if index < text.endIndex && text[index] == colon {
                guard gap == nil else { return nil }
                gap = groups.count
                index += 1
            } else if index == text.endIndex {
                // A single trailing colon.
                return nil
            }
        }
        if let gap {
            guard groups.count <= 7 else { return nil }
            groups.insert(contentsOf: repeatElement(0, count: 8 - groups.count), at: gap)
        }
        guard groups.count == 8 else { return nil }
        return groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// The value of a hex digit.
    private static func hexDigit(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    /// Whether the first `bits` bits of two addresses of the same length are equal.
    static func prefix(of address: [UInt8], equalsPrefixOf network: [UInt8], bits: Int) -> Bool {
        guard address.count == network.count, (0...address.count * 8).contains(bits) else { return false }
        let whole = bits / 8
        guard address.prefix(whole).elementsEqual(network.prefix(whole)) else { return false }
        let rest = bits % 8
        guard rest > 0 else { return true }
        let mask: UInt8 = 0xFF << (8 - rest)
        return address[whole] & mask == network[whole] & mask
    }
}

extension Substring {
    /// Splits `host[:port]`, `[IPv6][:port]` or a bare IPv6 address (two colons or more, no
    /// port) into the host (brackets kept) and the port; nil if the port is not 1...65535 or
    /// text follows a bracket's close. An empty port (`host:`) counts as none.
    fileprivate func splitHostAndPort() -> (host: Substring, port: Int?)? {
        let host: Substring
        let portText: Substring?
        if hasPrefix("[") {
            guard let close = firstIndex(of: "]") else { return nil }
            host = self[...close]
            let after = self[index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return nil }
            portText = after.isEmpty ? nil : after.dropFirst()
        } else if let colon = firstIndex(of: ":"), self[index(after: colon)...].firstIndex(of: ":") == nil {
            host = self[..<colon]
            portText = self[index(after: colon)...]
        } else {
            host = self
            portText = nil
        }
        guard let portText, !portText.isEmpty else { return (host, nil) }
        guard portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portText),
            (1...65535).contains(port)
        else { return nil }
        return (host, port)
    }
}
