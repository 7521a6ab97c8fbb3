import Foundation
import XCTest

@testable import Leash

/// Proxies from the environment as curl reads them: which variables, what values mean, and
/// which hosts `no_proxy` takes off the proxy. Every test passes its own environment.
final class HTTPProxyEnvironmentTests: XCTestCase {
    private typealias Proxy = HTTPProxyEnvironment.Proxy
    private typealias Rule = HTTPProxyEnvironment.NoProxyRule

    /// The proxy for `scheme://host:port` under `environment`.
    private func proxy(
        _ environment: [String: String], _ scheme: String = "http", _ host: String = "example.com", _ port: Int = 80
    ) -> Proxy? {
        HTTPProxyEnvironment(environment: environment).proxy(scheme: scheme, host: host, port: port)
    }

    /// Whether `no_proxy` = `list` sends a request to `host:port` directly.
    private func bypasses(_ list: String, _ host: String, port: Int = 80) -> Bool {
        proxy(["http_proxy": "proxy:3128", "no_proxy": list], "http", host, port) == nil
    }

    /// The `Proxy-Authorization` value for `user:password`.
    private func basic(_ credentials: String) -> String {
        "Basic " + Data(credentials.utf8).base64EncodedString()
    }

    // MARK: - Variables

    /// An empty environment sets no proxy.
    func testInit_emptyEnvironmentHasNoProxy() {
        let environment = HTTPProxyEnvironment(environment: [:])
        XCTAssertEqual(environment, HTTPProxyEnvironment(http: nil, https: nil))
        XCTAssertNil(environment.proxy(scheme: "https", host: "example.com", port: 443))
    }

    /// http_proxy is read in lowercase only: HTTP_PROXY may come from a CGI request's Proxy header.
    func testHTTPProxy_isReadInLowercaseOnly() {
        XCTAssertNil(proxy(["HTTP_PROXY": "attacker.example:80"]))
        XCTAssertEqual(proxy(["http_proxy": "proxy:3128"]), Proxy(host: "proxy", port: 3128))
        XCTAssertEqual(
            proxy(["http_proxy": "proxy:3128", "HTTP_PROXY": "attacker.example:80"]), Proxy(host: "proxy", port: 3128))
    }

    /// https_proxy in either case, lowercase first; it serves https only.
    func testHTTPSProxy_readsBothCasesLowercaseFirst() {
        XCTAssertEqual(proxy(["HTTPS_PROXY": "upper:1"], "https"), Proxy(host: "upper", port: 1))
        XCTAssertEqual(
            proxy(["https_proxy": "lower:2", "HTTPS_PROXY": "upper:1"], "https"), Proxy(host: "lower", port: 2))
        XCTAssertNil(proxy(["https_proxy": "lower:2"], "http"))
        XCTAssertNil(proxy(["http_proxy": "plain:2"], "https"))
    }

    /// all_proxy (then ALL_PROXY) serves both schemes when their own variable is unset.
    func testAllProxy_isTheFallbackForBothSchemes() {
        let all = ["ALL_PROXY": "upper:1", "all_proxy": "lower:2"]
        XCTAssertEqual(proxy(all, "http"), Proxy(host: "lower", port: 2))
        XCTAssertEqual(proxy(all, "https"), Proxy(host: "lower", port: 2))
        XCTAssertEqual(proxy(["ALL_PROXY": "upper:1"], "https"), Proxy(host: "upper", port: 1))
        let specific = all.merging(["http_proxy": "h:3", "HTTPS_PROXY": "s:4"]) { $1 }
        XCTAssertEqual(proxy(specific, "http"), Proxy(host: "h", port: 3))
        XCTAssertEqual(proxy(specific, "https"), Proxy(host: "s", port: 4))
    }

    /// Empty and blank values are unset: the next variable in order is read.
    func testInit_emptyValuesAreUnset() {
        XCTAssertEqual(proxy(["https_proxy": "", "HTTPS_PROXY": "upper:1"], "https"), Proxy(host: "upper", port: 1))
        XCTAssertEqual(proxy(["http_proxy": "  ", "all_proxy": "all:5"]), Proxy(host: "all", port: 5))
        XCTAssertNil(proxy(["http_proxy": "", "all_proxy": ""]))
        XCTAssertEqual(HTTPProxyEnvironment(environment: ["http_proxy": "p:1", "no_proxy": ""]).noProxy, [])
        XCTAssertTrue(bypassesWithUpper(lower: "", upper: "example.com"))
    }

    /// NO_PROXY is read when no_proxy is unset or empty; no_proxy wins when both are set.
    func testNoProxy_readsBothCasesLowercaseFirst() {
        XCTAssertTrue(bypassesWithUpper(lower: nil, upper: "example.com"))
        XCTAssertFalse(bypassesWithUpper(lower: "other.com", upper: "example.com"))
    }

    /// Whether example.com is reached directly with no_proxy = `lower` and NO_PROXY = `upper`.
    private func bypassesWithUpper(lower: String?, upper: String) -> Bool {
        var environment = ["http_proxy": "proxy:3128", "NO_PROXY": upper]
        environment["no_proxy"] = lower
        return proxy(environment) == nil
    }

    /// http and ws use the http proxy, https and wss the https one, in any case; other schemes
    /// connect directly.
    func testProxy_schemesChooseTheVariable() {
        let environment = ["http_proxy": "h:1", "https_proxy": "s:2"]
        XCTAssertEqual(proxy(environment, "HTTP"), Proxy(host: "h", port: 1))
        XCTAssertEqual(proxy(environment, "ws"), Proxy(host: "h", port: 1))
        XCTAssertEqual(proxy(environment, "HTTPS"), Proxy(host: "s", port: 2))
        XCTAssertEqual(proxy(environment, "wss"), Proxy(host: "s", port: 2))
        XCTAssertNil(proxy(environment, "ftp"))
        XCTAssertNil(proxy(environment, ""))
    }

    // MARK: - Proxy values

    /// Host, host:port, with http://, with a path, bracketed IPv6; 1080 when no port is given.
    func testProxyValue_forms() {
        let cases: [(String, Proxy)] = [
            ("proxy.example", Proxy(host: "proxy.example", port: 1080)),
            ("proxy.example:8080", Proxy(host: "proxy.example", port: 8080)),
            ("http://proxy.example:8080", Proxy(host: "proxy.example", port: 8080)),
            ("HTTP://Proxy.Example:8080/", Proxy(host: "proxy.example", port: 8080)),
            ("http://proxy.example", Proxy(host: "proxy.example", port: 1080)),
            ("http://proxy.example/some/path?q#f", Proxy(host: "proxy.example", port: 1080)),
            ("proxy.example:", Proxy(host: "proxy.example", port: 1080)),
            (" 10.0.0.1:3128\n", Proxy(host: "10.0.0.1", port: 3128)),
            ("[::1]:3128", Proxy(host: "::1", port: 3128)),
            ("http://[2001:DB8::1]", Proxy(host: "2001:db8::1", port: 1080)),
            ("proxy:65535", Proxy(host: "proxy", port: 65535)),
        ]
        for (value, expected) in cases {
            XCTAssertEqual(proxy(["http_proxy": value]), expected, value)
            XCTAssertEqual(HTTPProxyEnvironment(environment: ["http_proxy": value]).unsupported, [], value)
        }
        XCTAssertEqual(HTTPProxyEnvironment.defaultProxyPort, 1080)
    }

    /// user:password becomes a Basic authorization, percent-decoded; a user alone gets an empty
    /// password; the last @ ends the user information.
    func testProxyValue_credentialsBecomeBasicAuthorization() {
        let cases: [(String, String?)] = [
            ("http://user:secret@proxy:8080", basic("user:secret")),
            ("user:secret@proxy:8080", basic("user:secret")),
            ("http://us%65r:p%40ss%3Aword@proxy/", basic("user:p@ss:word")),
            ("http://user@proxy", basic("user:")),
            ("http://user:@proxy", basic("user:")),
            ("http://:secret@proxy", basic(":secret")),
            ("http://user:p@ss@proxy", basic("user:p@ss")),
            ("http://%E2%82%AC:x@proxy", basic("€:x")),
            ("http://@proxy", nil),
            ("http://proxy", nil),
        ]
        for (value, authorization) in cases {
            XCTAssertEqual(proxy(["http_proxy": value])?.authorization, authorization, value)
            XCTAssertEqual(proxy(["http_proxy": value])?.host, "proxy", value)
        }
        // Bytes that are not UTF-8 are sent as they are.
        let latin1 = proxy(["http_proxy": "http://%FC:x@proxy"])?.authorization
        XCTAssertEqual(latin1, "Basic " + Data([0xFC, 0x3A, 0x78]).base64EncodedString())
    }

    /// A proxy's description leaves its credentials out.
    func testProxy_descriptionHidesCredentials() {
        let proxy = Proxy(host: "proxy", port: 8080, authorization: basic("user:secret"))
        XCTAssertEqual(proxy.description, "proxy:8080 (with credentials)")
        XCTAssertEqual(Proxy(host: "::1", port: 3128).description, "[::1]:3128")
        XCTAssertFalse(String(describing: HTTPProxyEnvironment(http: proxy, https: nil)).contains("c2VjcmV0"))
    }

    /// https:// (TLS to the proxy) and SOCKS proxies are ignored and listed, with credentials
    /// masked; the request goes directly rather than through all_proxy.
    func testProxyValue_unsupportedSchemesAreIgnoredAndListed() {
        for scheme in ["https", "socks5", "socks5h", "socks4", "socks4a", "SOCKS5", "ftp"] {
            let environment = HTTPProxyEnvironment(environment: [
                "https_proxy": "\(scheme)://user:secret@proxy:1080", "all_proxy": "fallback:3128",
            ])
            XCTAssertNil(environment.https, scheme)
            XCTAssertEqual(environment.http, Proxy(host: "fallback", port: 3128), scheme)
            XCTAssertEqual(
                environment.unsupported,
                [
                    "https_proxy=\(scheme)://***@proxy:1080: unsupported proxy scheme \"\(scheme.lowercased())\" "
                        + "(only http:// is)"
                ], scheme)
        }
        // all_proxy feeds both schemes, but is listed once.
        let socks = HTTPProxyEnvironment(environment: ["ALL_PROXY": "socks5://proxy"])
        XCTAssertEqual(socks, HTTPProxyEnvironment(http: nil, https: nil).with(unsupported: socks.unsupported))
        XCTAssertEqual(socks.unsupported.count, 1)
    }

    /// Values that do not parse are ignored and listed.
    func testProxyValue_malformedValuesAreIgnoredAndListed() {
        let cases = [
            "http://:8080", "proxy:0", "proxy:65536", "proxy:80a", "proxy:-1", "proxy:123456", "::1:8080", "[::1",
            "[zz::1]:80", "[::1]x", "prox y:80", "http://", "http://user:%zz@proxy", "http://u%4@proxy", "proxy:80:80",
        ]
        for value in cases {
            let environment = HTTPProxyEnvironment(environment: ["http_proxy": value])
            XCTAssertNil(environment.http, value)
            XCTAssertEqual(environment.unsupported.count, 1, value)
            XCTAssertTrue(environment.unsupported.first?.hasPrefix("http_proxy=") ?? false, value)
        }
    }

    // MARK: - no_proxy

    /// `*` takes every host off the proxy, alone or in a list; with a port, every host on it.
    func testNoProxy_starMatchesEveryHost() {
        for host in ["example.com", "10.0.0.1", "::1", "localhost"] {
            XCTAssertTrue(bypasses("*", host), host)
            XCTAssertTrue(bypasses("other.com, *", host), host)
        }
        XCTAssertTrue(bypasses("*:8080", "example.com", port: 8080))
        XCTAssertFalse(bypasses("*:8080", "example.com", port: 80))
    }

    /// A name matches itself and its subdomains, with or without a leading dot or `*.`, not
    /// names that merely end the same way.
    func testNoProxy_domainsMatchThemselvesAndSubdomains() {
        for entry in ["example.com", ".example.com", "*.example.com", "EXAMPLE.com"] {
            XCTAssertTrue(bypasses(entry, "example.com"), entry)
            XCTAssertTrue(bypasses(entry, "api.example.com"), entry)
            XCTAssertTrue(bypasses(entry, "a.b.Example.COM"), entry)
            XCTAssertFalse(bypasses(entry, "myexample.com"), entry)
            XCTAssertFalse(bypasses(entry, "example.com.evil"), entry)
            XCTAssertFalse(bypasses(entry, "com"), entry)
        }
    }

    /// A trailing dot, on the entry or on the host, is ignored.
    func testNoProxy_trailingDotsAreIgnored() {
        XCTAssertTrue(bypasses("example.com.", "api.example.com"))
        XCTAssertTrue(bypasses("example.com", "api.example.com."))
        XCTAssertTrue(bypasses(".example.com.", "example.com."))
    }

    /// Entries are separated by commas and any whitespace, empty ones skipped.
    func testNoProxy_separatorsAreCommasAndWhitespace() {
        let environment = HTTPProxyEnvironment(environment: ["no_proxy": " a.com,b.com\tc.com  d.com,,\ne.com ,"])
        XCTAssertEqual(
            environment.noProxy.map(\.pattern), ["a.com", "b.com", "c.com", "d.com", "e.com"].map(Rule.Pattern.domain))
        XCTAssertEqual(environment.unsupported, [])
    }

    /// An IPv4 address matches that address only; names never match addresses.
    func testNoProxy_ipv4AddressesMatchExactly() {
        XCTAssertTrue(bypasses("10.1.2.3", "10.1.2.3"))
        XCTAssertFalse(bypasses("10.1.2.3", "10.1.2.4"))
        XCTAssertFalse(bypasses("10.1.2.3", "110.1.2.3"))
        XCTAssertFalse(bypasses("2.3", "10.1.2.3"))
        XCTAssertFalse(bypasses("localhost", "127.0.0.1"))
        XCTAssertFalse(bypasses("127.0.0.1", "localhost"))
    }

    /// CIDR networks match the addresses in them.
    func testNoProxy_ipv4NetworksMatchAddressesInRange() {
        XCTAssertTrue(bypasses("10.0.0.0/8", "10.255.0.1"))
        XCTAssertFalse(bypasses("10.0.0.0/8", "11.0.0.1"))
        XCTAssertTrue(bypasses("172.16.0.0/12", "172.31.255.255"))
        XCTAssertFalse(bypasses("172.16.0.0/12", "172.32.0.0"))
        XCTAssertTrue(bypasses("192.168.1.7/24", "192.168.1.200"))
        XCTAssertTrue(bypasses("0.0.0.0/0", "8.8.8.8"))
        XCTAssertFalse(bypasses("0.0.0.0/0", "::1"))
        XCTAssertFalse(bypasses("0.0.0.0/0", "example.com"))
        XCTAssertTrue(bypasses("10.1.2.3/32", "10.1.2.3"))
        XCTAssertFalse(bypasses("10.1.2.3/32", "10.1.2.2"))
    }

    /// IPv6 addresses compare as numbers, with or without brackets on either side; networks too.
    func testNoProxy_ipv6AddressesAndNetworks() {
        for entry in ["::1", "[::1]", "0:0:0:0:0:0:0:1", "::1/128", "[::1/128]"] {
            for host in ["::1", "[::1]", "0:0::1", "[0000:0000:0000:0000:0000:0000:0000:0001]"] {
                XCTAssertTrue(bypasses(entry, host), "\(entry) \(host)")
            }
            XCTAssertFalse(bypasses(entry, "::2"), entry)
        }
        XCTAssertTrue(bypasses("fe80::/10", "fe80::1"))
        XCTAssertTrue(bypasses("fe80::/10", "[febf:ffff::1]"))
        XCTAssertFalse(bypasses("fe80::/10", "fec0::1"))
        XCTAssertTrue(bypasses("2001:db8::/32", "2001:DB8:1234::5"))
        XCTAssertTrue(bypasses("::ffff:10.0.0.1", "::ffff:a00:1"))
        XCTAssertTrue(bypasses("fe80::1", "fe80::1%eth0"))
    }

    /// An IPv4 entry matches the same address written IPv4-mapped; the reverse is not needed.
    func testNoProxy_ipv4EntriesMatchMappedAddresses() {
        XCTAssertTrue(bypasses("10.0.0.0/8", "::ffff:10.1.2.3"))
        XCTAssertTrue(bypasses("10.1.2.3", "[::ffff:10.1.2.3]"))
        XCTAssertFalse(bypasses("10.0.0.0/8", "::10.1.2.3"))
    }

    /// An entry with a port matches requests to that port only.
    func testNoProxy_portsLimitTheEntry() {
        XCTAssertTrue(bypasses("example.com:8080", "api.example.com", port: 8080))
        XCTAssertFalse(bypasses("example.com:8080", "api.example.com", port: 80))
        XCTAssertTrue(bypasses("10.0.0.1:443", "10.0.0.1", port: 443))
        XCTAssertFalse(bypasses("10.0.0.1:443", "10.0.0.1", port: 80))
        XCTAssertTrue(bypasses("[::1]:8080", "::1", port: 8080))
        XCTAssertFalse(bypasses("[::1]:8080", "::1", port: 80))
        XCTAssertEqual(Rule("example.com:"), Rule(pattern: .domain("example.com")))
    }

    /// localhost and the loopback addresses are not excluded unless listed, as with curl.
    func testNoProxy_loopbackIsNotImplicitlyExcluded() {
        for host in ["localhost", "127.0.0.1", "::1", "[::1]"] {
            XCTAssertEqual(proxy(["http_proxy": "proxy:3128"], "http", host), Proxy(host: "proxy", port: 3128), host)
        }
        XCTAssertTrue(bypasses("localhost,127.0.0.1,::1", "localhost"))
        XCTAssertTrue(bypasses("localhost,127.0.0.1,::1", "127.0.0.1"))
        XCTAssertTrue(bypasses("localhost,127.0.0.1,::1", "[::1]"))
    }

    /// Entries that state nothing are dropped and listed; the others still apply.
    func testNoProxy_invalidEntriesAreDroppedAndListed() {
        let invalid = [
            "10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/x", "exa*mple.com", "example.com:99999", "[::1", "[::1]x",
            "1::2::3", "1:2:3:4:5:6:7:8:9", "12345::", "1:2:3:4:5:6:7", ":1::", "1::2:", "::1.2.3", "[example.com]",
            ".", "*.", "a/b",
        ]
        let environment = HTTPProxyEnvironment(environment: [
            "http_proxy": "proxy:3128", "no_proxy": (invalid + ["example.com"]).joined(separator: ","),
        ])
        XCTAssertEqual(environment.noProxy, [Rule(pattern: .domain("example.com"))])
        XCTAssertEqual(
            environment.unsupported,
            invalid.map { "no_proxy entry \"\($0)\": not a host, address, network or \"*\"" })
        XCTAssertNil(environment.proxy(scheme: "http", host: "example.com", port: 80))
    }

    /// IPv6 text forms that parse: full, compressed anywhere, with an IPv4 tail.
    func testNoProxyRule_ipv6FormsThatParse() {
        let cases: [(String, [UInt8])] = [
            ("::", [UInt8](repeating: 0, count: 16)),
            ("1::", [0, 1] + [UInt8](repeating: 0, count: 14)),
            ("1:2:3:4:5:6:7:8", [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]),
            ("1::2:3:4:5:6:7", [0, 1, 0, 0, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7]),
            ("::ffff:1.2.3.4", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 1, 2, 3, 4]),
            ("ABCD:ef01::", [0xAB, 0xCD, 0xEF, 0x01] + [UInt8](repeating: 0, count: 12)),
        ]
        for (text, bytes) in cases {
            XCTAssertEqual(Rule(text), Rule(pattern: .network(address: bytes, prefixLength: 128)), text)
        }
        XCTAssertEqual(Rule("10.0.0.0/8"), Rule(pattern: .network(address: [10, 0, 0, 0], prefixLength: 8)))
        XCTAssertEqual(Rule("*"), Rule(pattern: .everyHost))
        XCTAssertEqual(Rule("01.2.3.4"), Rule(pattern: .domain("01.2.3.4")))
    }

    /// A target's host loses brackets, case, zone and trailing dot, and knows its address.
    func testNoProxyRuleTarget_normalisesTheHost() {
        XCTAssertEqual(Rule.Target("[FE80::1%eth0]").name, "fe80::1")
        XCTAssertEqual(Rule.Target("[FE80::1%eth0]").address?.count, 16)
        XCTAssertEqual(Rule.Target("Example.COM.").name, "example.com")
        XCTAssertNil(Rule.Target("example.com").address)
        XCTAssertEqual(Rule.Target("10.0.0.1").address, [10, 0, 0, 1])
        XCTAssertNil(Rule.Target("").address)
        XCTAssertFalse(bypasses("example.com", ""))
    }

    /// Random values built from the characters that matter to the parsers end in a proxy or
    /// none, never a crash.
    func testInit_randomValuesNeverCrash() {
        let alphabet = Array("ab1:9[]/.%@*,: \t-0fF")
        var generator = ZlibCompression.SeededGenerator(seed: 7)
        /// A random string of up to 24 characters from `alphabet`.
        func randomText() -> String {
            String(
                (0..<Int(generator.next() % 25)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
        }
        for _ in 0..<5_000 {
            let environment = HTTPProxyEnvironment(environment: [
                "http_proxy": randomText(), "https_proxy": "http://" + randomText(), "no_proxy": randomText(),
            ])
            for scheme in ["http", "https"] {
                _ = environment.proxy(scheme: scheme, host: randomText(), port: Int(generator.next() % 70_000))
            }
        }
    }
}

extension HTTPProxyEnvironment {
    /// This environment with `unsupported` replaced, to compare diagnostics-bearing values.
    fileprivate func with(unsupported: [String]) -> HTTPProxyEnvironment {
        var copy = self
        copy.unsupported = unsupported
        return copy
    }
}
