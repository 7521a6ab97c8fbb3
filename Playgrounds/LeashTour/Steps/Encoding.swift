import Foundation
import LeashExamples
import Leash

extension Tour {
    /// Query parameters for GET, JSON bodies for POST; what cannot be encoded is an error.
    func encoding(_ client: Client) {
        step("Encoding query and body parameters") {
            say(
                """
                For GET, a dictionary (or a QueryEncodable) goes to the query, percent-encoded,
                keys in a stable order. For POST, an Encodable goes to the body as JSON.
                """)
            let request = try client.urlRequest(for: API.posts(userId: 1))
            check(request.url?.query == "userId=1", "GET /posts?\(request.url?.query ?? "") carries the query")
            let posts = try waitFor { try await client.execute(API.posts(userId: 1), as: [Post].self) }
            check(!posts.isEmpty && posts.allSatisfy { $0.userId == 1 }, "the server filtered \(posts.count) posts")

            let draft = NewPost(userId: 1, title: "Hello", body: "Sent as JSON")
            let post = try client.urlRequest(for: API.createPost(draft))
            check(
                post.value(forHTTPHeaderField: "Content-Type") == "application/json",
                "POST sends Content-Type: application/json")
            say("A parameter that cannot be encoded is LeashError.encoding, never silently dropped:")
            do {
                _ = try client.urlRequest(for: Unencodable())
                check(false, "an infinite number in a JSON body is refused")
            } catch let error as LeashError {
                say("   \(error)")
                check(error.isEncoding, "a body JSON cannot express is LeashError.encoding, before anything is sent")
            }
        }
    }

    /// Creating a resource (writes: only on the tour's own server).
    func creating(_ client: Client) {
        step("Sending a body", needsLocalServer: true) {
            let draft = NewPost(userId: 1, title: "Hello", body: "Sent as JSON")
            let created = try waitFor { try await client.execute(API.createPost(draft), as: Post.self) }
            check(created.id == 101 && created.title == "Hello", "the server created post \(created.id)")
        }
    }
}

/// An endpoint whose body holds a number JSON cannot express.
private struct Unencodable: Endpoint {
    struct Reading: Encodable {
        let value: Double
    }
    var path: String { "/readings" }
    var method: HTTPMethod { .post }
    var parameters: Any? { Reading(value: .infinity) }
}

extension LeashError {
    /// Whether this is an encoding error.
    fileprivate var isEncoding: Bool {
        if case .encoding = self { return true }
        return false
    }
}
