import RxLeash

// The API, as endpoints: what each request is, and what its answer decodes to.
struct User: Decodable, Equatable, Sendable {
    let id: Int
    let name: String
}

struct GetUsers: TypedEndpoint {
    typealias Response = [User]
    var path: String { "/users" }
    var method: HTTPMethod { .get }
}
