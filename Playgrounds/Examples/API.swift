import Foundation
import Leash

/// A user, shaped like JSONPlaceholder's (so the read-only steps also run against
/// `https://jsonplaceholder.typicode.com` with `--base-url`).
public struct User: Codable, Equatable, Sendable {
    /// The user's id.
    public let id: Int
    /// The user's full name.
    public let name: String
    /// The user's handle.
    public let username: String
    /// The user's email address.
    public let email: String

    /// A user with these fields.
    public init(id: Int, name: String, username: String, email: String) {
        self.id = id
        self.name = name
        self.username = username
        self.email = email
    }
}

/// A post, shaped like JSONPlaceholder's.
public struct Post: Codable, Equatable, Sendable {
    /// The author's id.
    public let userId: Int
    /// The post's id.
    public let id: Int
    /// The title.
    public let title: String
    /// The text.
    public let body: String

    /// A post with these fields.
    public init(userId: Int, id: Int, title: String, body: String) {
        self.userId = userId
        self.id = id
        self.title = title
        self.body = body
    }
}

/// The body of a new post.
public struct NewPost: Encodable, Sendable {
    /// The author's id.
    public let userId: Int
    /// The title.
    public let title: String
    /// The text.
    public let body: String

    /// A draft with these fields.
    public init(userId: Int, title: String, body: String) {
        self.userId = userId
        self.title = title
        self.body = body
    }
}

/// The example API (JSONPlaceholder's shape), declared as endpoints.
public enum API: Endpoint {
    /// `GET /users`.
    case users
    /// `GET /users/{id}`.
    case user(id: Int)
    /// `GET /posts?userId={userId}`.
    case posts(userId: Int)
    /// `POST /posts` with a JSON body.
    case createPost(NewPost)
    /// `GET /users?q={term}`: users whose name, handle or email contains the term.
    case searchUsers(String)
    /// A request the tour's server answers only after five seconds.
    case slow

    /// The path, under the manager's base URL.
    public var path: String {
        switch self {
        case .users, .searchUsers: return "/users"
        case .user(let id): return "/users/\(id)"
        case .posts, .createPost: return "/posts"
        case .slow: return "/delay/5000"
        }
    }

    /// The method.
    public var method: HTTPMethod {
        switch self {
        case .createPost: return .post
        default: return .get
        }
    }

    /// Query parameters for GETs, the body for the POST.
    public var parameters: Any? {
        switch self {
        case .posts(let userId): return ["userId": userId]
        case .createPost(let post): return post
        case .searchUsers(let term): return ["q": term]
        default: return nil
        }
    }
}

/// A typed endpoint: it knows its response type.
public struct GetUser: TypedEndpoint {
    /// The response decodes to a `User`.
    public typealias Response = User
    /// The user's id.
    public let id: Int
    /// `GET /users/{id}`.
    public var path: String { "/users/\(id)" }
    /// GET.
    public var method: HTTPMethod { .get }

    /// The request for user `id`.
    public init(id: Int) {
        self.id = id
    }
}
