import Foundation
import LeashExamples
import LoopbackServer

/// The tour's API on a `LoopbackServer`: users and posts shaped like JSONPlaceholder's,
/// plus what the real API has not: a token endpoint and a resource that answers 401 to a
/// stale token.
enum TourServer {
    static let users = [
        User(id: 1, name: "Leanne Graham", username: "Bret", email: "Sincere@april.biz"),
        User(id: 2, name: "Ervin Howell", username: "Antonette", email: "Shanna@melissa.tv"),
        User(id: 3, name: "Clementine Bauch", username: "Samantha", email: "Nathan@yesenia.net"),
    ]

    static let posts = users.flatMap { user in
        (1...2).map { index in
            Post(
                userId: user.id, id: (user.id - 1) * 2 + index, title: "Post \(index) by \(user.username)",
                body: "A post body.")
        }
    }

    /// Starts a server answering the tour's routes.
    static func start(state: TourServerState) throws -> LoopbackServer {
        let server = try LoopbackServer(routes: routes(state: state))
        server.start()
        return server
    }

    static func routes(state: TourServerState) -> [LoopbackServer.Route] {
        [
            .get("/users") { request in
                guard let term = request.queryValue("q")?.lowercased(), !term.isEmpty else { return .json(users) }
                // Searches take a moment, as on a real server: a search replaced by the next
                // keystroke (the pipelines step) is still in flight when it is cancelled,
                // however fast the loopback answers.
                return LoopbackResponse.json(
                    users.filter { user in
                        [user.name, user.username, user.email].contains { $0.lowercased().contains(term) }
                    }
                ).delayed(by: 0.05)
            },
            .get("/users/*") { request in
                guard let id = request.pathComponents.last.flatMap({ Int($0) }),
                    let user = users.first(where: { $0.id == id })
                else { return .json(Data("{}".utf8), status: 404) }
                return .json(user)
            },
            .get("/posts") { request in
                guard let userId = request.queryValue("userId").flatMap({ Int($0) }) else { return .json(posts) }
                return .json(posts.filter { $0.userId == userId })
            },
            .post("/posts") { request in
                guard var object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] else {
                    return .json(Data(#"{"error":"the body is not a JSON object"}"#.utf8), status: 400)
                }
                object["id"] = 101
                let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
                return .json(body, status: 201)
            },
            .post("/token") { _ in
                .json(Data(#"{"token":"\#(state.issueToken())"}"#.utf8))
            },
            .get("/me") { request in
                guard request.headers["Authorization"] == "Bearer \(state.currentToken)" else {
                    state.countRejection()
                    // Answered a little late, so that requests sent together all meet the
                    // expired token before any refresh has started.
                    return .json(Data(#"{"error":"the token is missing or expired"}"#.utf8), status: 401)
                        .delayed(by: 0.1)
                }
                return .json(users[0])
            },
        ]
    }
}

/// The server's tokens: which one is current and how many were issued.
final class TourServerState: @unchecked Sendable {
    // @unchecked: every access holds the lock.
    private let lock = NSLock()
    private var token = "token-0"
    private var issued = 0
    private var rejected = 0

    /// The token `/me` accepts.
    var currentToken: String { lock.withLock { token } }

    /// How many tokens `/token` handed out.
    var tokensIssued: Int { lock.withLock { issued } }

    /// How many requests `/me` rejected with 401.
    var rejections: Int { lock.withLock { rejected } }

    func countRejection() {
        lock.withLock { rejected += 1 }
    }

    /// A new token, which replaces the current one.
    func issueToken() -> String {
        lock.withLock {
            issued += 1
            token = "token-\(issued)"
            return token
        }
    }

    /// Makes the current token stale, as an expiry would.
    func expireToken() {
        lock.withLock { token = "expired-\(issued)" }
    }
}
