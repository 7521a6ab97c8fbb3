import Leash
import Rx

/// `client.rx`: the executions of a client as `Observable`s and `Single`s.
///
/// A subclass gets a `Reactive` of its own type, so an API's calls can be grouped as
/// Leash's example project does:
///
/// ```swift
/// extension Reactive where Base: UsersClient {
///     func readAll() -> Observable<[User]> { execute(APIEndpoint.readAllUsers, type: [User].self) }
/// }
/// usersClient.rx.readAll().subscribe { event in print(event) }
/// ```
extension Client: ReactiveCompatible {}
