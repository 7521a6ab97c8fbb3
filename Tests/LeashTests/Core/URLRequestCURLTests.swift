import Foundation
import Leash
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `URLRequest.cURLDescription`: the command's form, the secrets it hides, and, through a
/// real POSIX shell, that every value reaches `curl` exactly as it is in the request.
final class URLRequestCURLTests: XCTestCase {
    private let hostile = "it's \"quoted\" $HOME `echo hi` \\n \\ back\nslash 'twice'' ; rm -rf / # done"

    private func request(_ url: String = "https://api.example.com/v1/users", method: String = "GET") throws
        -> URLRequest
    {
        var request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        request.httpMethod = method
        return request
    }

    func testCommand_hasTheMethodSortedHeadersBodyAndURLLast() throws {
        var request = try request(method: "POST")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = Data(#"{"name":"Alice"}"#.utf8)

        XCTAssertEqual(
            request.cURLDescription,
            """
            curl -v -X POST \\
              -H 'Accept: application/json' \\
              -H 'Content-Type: application/json' \\
              --data-binary '{"name":"Alice"}' \\
              'https://api.example.com/v1/users'
            """)
    }

    func testSecrets_areHiddenByDefault_andShownOnlyWhenAsked() throws {
        var request = try request()
        request.setValue("Bearer abc", forHTTPHeaderField: "Authorization")
        request.setValue("Basic xyz", forHTTPHeaderField: "Proxy-Authorization")
        request.setValue("session=1", forHTTPHeaderField: "Cookie")
        request.setValue("k-1", forHTTPHeaderField: "X-Api-Key")

        let hidden = request.cURLDescription
        XCTAssertTrue(hidden.contains("-H 'Authorization: ***'"), hidden)
        XCTAssertTrue(hidden.contains("-H 'Proxy-Authorization: ***'"), hidden)
        XCTAssertTrue(hidden.contains("-H 'Cookie: ***'"), hidden)
        XCTAssertTrue(hidden.contains("-H 'X-Api-Key: k-1'"), hidden)
        XCTAssertFalse(hidden.contains("abc") || hidden.contains("xyz") || hidden.contains("session=1"))

        let custom = request.cURLDescription(redacting: HeaderRedaction(also: ["x-api-key"]))
        XCTAssertTrue(custom.contains("-H 'X-Api-Key: ***'"), custom)
        XCTAssertTrue(custom.contains("-H 'Authorization: ***'"), custom)

        let shown = request.cURLDescription(redacting: .none)
        XCTAssertTrue(shown.contains("-H 'Authorization: Bearer abc'"), shown)
        XCTAssertTrue(shown.contains("-H 'Cookie: session=1'"), shown)
    }

    func testHeadUsesHead_andOddMethodsAreQuoted() throws {
        XCTAssertTrue(try request(method: "HEAD").cURLDescription.hasPrefix("curl -v --head \\\n"))
        XCTAssertTrue(try request(method: "PURGE").cURLDescription.hasPrefix("curl -v -X PURGE \\\n"))
        XCTAssertTrue(try request(method: "GET;x").cURLDescription.hasPrefix("curl -v -X 'GET;x' \\\n"))
    }

    func testBodiesNotInMemory_areNotRead_butNamed() throws {
        var streamed = try request(method: "PUT")
        streamed.httpBodyStream = InputStream(data: Data("secret stream".utf8))
        let description = streamed.cURLDescription
        XCTAssertTrue(
            description.hasSuffix(
                "'https://api.example.com/v1/users'  # the body is sent from a stream and is not shown"), description)
        XCTAssertFalse(description.contains("--data-binary"))

        var fromFile = try request(method: "POST")
        fromFile.setValue("1048576", forHTTPHeaderField: "Content-Length")
        XCTAssertTrue(
            fromFile.cURLDescription.hasSuffix("  # the body (1048576 bytes) is sent from a file and is not shown"),
            fromFile.cURLDescription)
    }

    // MARK: Through a shell

    func testHostileHeaderBodyAndURL_reachCurlUnchanged_throughAPOSIXShell() throws {
        var request = try request("https://api.example.com/v1/it's?q=$HOME&x=`id`", method: "POST")
        // Foundation drops a header value with a line break, so the header's has none.
        let note = hostile.replacingOccurrences(of: "\n", with: " ")
        request.setValue(note, forHTTPHeaderField: "X-Note")
        request.httpBody = Data(hostile.utf8)

        let run = try Self.runInShell(request.cURLDescription)

        XCTAssertEqual(
            run.arguments,
            [
                "-v", "-X", "POST", "-H", "X-Note: \(note)", "--data-binary", hostile,
                try XCTUnwrap(request.url?.absoluteString),
            ])
        XCTAssertTrue(request.url?.absoluteString.contains("'") == true, "the URL keeps its quote")
    }

    func testBinaryBody_isPipedInByteForByte() throws {
        var request = try request(method: "POST")
        let bytes = Data((0...255).map { UInt8($0) } + [0x00, 0x27, 0x25, 0x5C])  // NUL, ', %, \
        request.httpBody = bytes

        let description = request.cURLDescription
        let run = try Self.runInShell(description)

        XCTAssertTrue(description.hasPrefix("printf '\\000\\001"), description)
        XCTAssertEqual(run.arguments, ["-v", "-X", "POST", "--data-binary", "@-", "https://api.example.com/v1/users"])
        XCTAssertEqual(run.standardInput, bytes)
    }

    /// Runs `command` in `/bin/sh` with `curl` replaced by a function that writes its
    /// arguments (NUL-separated) and, if it reads its body from standard input, that
    /// input to a file: what a real curl would have been given, without a network.
    private static func runInShell(_ command: String) throws -> (arguments: [String], standardInput: Data) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let argumentsFile = directory.appendingPathComponent("arguments")
        let inputFile = directory.appendingPathComponent("stdin")
        let script = """
            curl() {
                for argument in "$@"; do printf '%s\\0' "$argument"; done > "$ARGUMENTS_FILE"
                case " $* " in *" @- "*) cat > "$INPUT_FILE" ;; esac
            }
            \(command)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.environment = ["ARGUMENTS_FILE": argumentsFile.path, "INPUT_FILE": inputFile.path, "HOME": "/nowhere"]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let output = try Data(contentsOf: argumentsFile)
        let arguments = output.split(separator: 0, omittingEmptySubsequences: false).dropLast().map {
            String(decoding: $0, as: UTF8.self)
        }
        return (arguments, (try? Data(contentsOf: inputFile)) ?? Data())
    }
}
