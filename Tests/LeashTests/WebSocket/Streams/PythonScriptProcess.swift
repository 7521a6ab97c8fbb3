import Foundation
import XCTest

// A subprocess needs Foundation.Process, which only macOS and Linux have.
#if os(macOS) || os(Linux)
    /// A Python 3 script run as a child process by a test (a TLS server, a proxy): it prints
    /// the port it listens on as its first line, may print more lines for the test to read,
    /// and exits when its standard input closes (when this is freed).
    final class PythonScriptProcess: @unchecked Sendable {  // Sendable: immutable after init.
        /// The port the script printed first.
        let port: Int
        private let process: Process
        /// The script's standard input: closing it stops the script.
        private let input: Pipe
        /// The script's standard output, after the port.
        private let output: Pipe

        /// Starts `python3 -c script arguments…`, or throws `XCTSkip` (naming `purpose`) when
        /// python3 is not there or prints no port.
        init(script: String, arguments: [String], purpose: String) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script] + arguments
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            self.process = process
            self.input = input
            self.output = output
            do {
                try process.run()
            } catch {
                throw XCTSkip("cannot run python3 for \(purpose): \(error)")
            }
            // The end of the output first means python3 did not start.
            guard let first = Self.line(from: output), let port = Int(first.trimmingCharacters(in: .whitespaces)) else {
                try? input.fileHandleForWriting.close()
                process.waitUntilExit()
                throw XCTSkip("python3 is not available to run \(purpose)")
            }
            self.port = port
        }

        deinit {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }

        /// The next line the script prints (blocking), or nil at the end of its output.
        func nextLine() -> String? {
            Self.line(from: output)
        }

        /// The next line of `pipe`, read a byte at a time so that nothing after it is taken.
        private static func line(from pipe: Pipe) -> String? {
            var line = Data()
            while true {
                guard let byte = try? pipe.fileHandleForReading.read(upToCount: 1), let first = byte.first else {
                    return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
                }
                if first == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
                line.append(first)
            }
        }
    }
#endif
