import Foundation
import Leash
import LoopbackServer

/// A user, shaped like JSONPlaceholder's (so the read-only steps also run against
/// `https://jsonplaceholder.typicode.com` with `--base-url`).
struct User: Codable, Equatable, Sendable {
    let id: Int
    let name: String
    let username: String
    let email: String
}

/// A post, shaped like JSONPlaceholder's.
struct Post: Codable, Equatable, Sendable {
    let userId: Int
    let id: Int
    let title: String
    let body: String
}

/// The body of a new post.
struct NewPost: Encodable, Sendable {
    let userId: Int
    let title: String
    let body: String
}

/// The tour's API, declared as endpoints.
enum API: Endpoint {
    case users
    case user(id: Int)
    case posts(userId: Int)
    case createPost(NewPost)
    case searchUsers(String)
    case slow

    var path: String {
        switch self {
        case .users, .searchUsers: return "/users"
        case .user(let id): return "/users/\(id)"
        case .posts, .createPost: return "/posts"
        case .slow: return "/delay/5000"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .createPost: return .post
        default: return .get
        }
    }

    var parameters: Any? {
        switch self {
        case .posts(let userId): return ["userId": userId]
        case .createPost(let post): return post
        case .searchUsers(let term): return ["q": term]
        default: return nil
        }
    }
}

/// A typed endpoint: it knows its response type.
struct GetUser: TypedEndpoint {
    typealias Response = User
    let id: Int
    var path: String { "/users/\(id)" }
    var method: HTTPMethod { .get }
    var parameters: Any? { nil }
}

/// Where the tour's requests go: its own loopback server, or a real API.
struct TourAPI {
    let baseURL: URL
    /// The tour's own server (nil against a real API).
    let server: LoopbackServer?
    /// The state of the tour's server (tokens, refresh count).
    let state: TourServerState?
}
