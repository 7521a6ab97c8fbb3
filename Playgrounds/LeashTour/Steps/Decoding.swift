import Foundation
import LeashExamples
import Leash

extension Tour {
    /// What a body that does not decode, or a status that is not acceptable, gives.
    func decoding(_ client: Client) {
        step("Decoding, and the errors a bad body gives") {
            say("The manager's JSONDecoder decodes the body into the type asked for.")
            let users = try waitFor { try await client.execute(API.users, as: [User].self) }
            check(users.contains { $0.username == "Bret" }, "[User] decoded, Bret among them")

            say("Asking for the wrong type is LeashError.decoding, with the DecodingError and a piece of the body:")
            do {
                _ = try waitFor { try await client.execute(API.user(id: 1), as: [Post].self) }
                check(false, "decoding a user as [Post] fails")
            } catch let error as LeashError {
                say("   \(String(describing: error).prefix(160))…")
                if case .decoding(_, let underlying, let excerpt) = error {
                    check(underlying is DecodingError, "the DecodingError is kept")
                    check(excerpt.contains("Leanne"), "so is an excerpt of the body")
                } else {
                    check(false, "the error is LeashError.decoding")
                }
            }

            say("A status outside 200..<300 is LeashError.unacceptableStatusCode, classified:")
            do {
                _ = try waitFor { try await client.execute(API.user(id: 9_999), as: User.self) }
                check(false, "a missing user fails")
            } catch LeashError.unacceptableStatusCode(let failure) {
                say("   \(failure.statusCode) \(failure.kind)")
                check(failure.statusCode == 404 && failure.kind == .client, "404 is a client error")
            }
        }
    }
}
