import Foundation
import LeashExamples
import Leash
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Tour {
    /// Setup: one manager per API, one client per area of it.
    func setup() -> Client? {
        var client: Client?
        step("Setup with Manager.Builder") {
            say(
                """
                A Manager holds what every request shares: the base URL, headers, the timeout,
                interceptors, the transport. build() checks the URL instead of crashing on it.
                """)
            let manager = try Manager.Builder()
                .url(api.baseURL)
                .header("Accept", "application/json")
                .timeout(10)
                .build()
            client = Client(manager: manager)
            check(manager.baseURL == api.baseURL, "the manager's base URL is \(manager.baseURL)")
            do {
                _ = try Manager.Builder().url("localhost:8080").build()
                check(false, "a base URL without a scheme is refused")
            } catch let error as LeashError {
                say("A base URL without a scheme is refused: \(error)")
                check(true, "a base URL without a scheme throws LeashError.invalidURL")
            }
        }
        return client
    }

    /// The three ways to execute: a callback, async/await, and the stream itself.
    func executing(_ client: Client) {
        step("Executing by callback and by async/await") {
            say("A callback gets a Response: the value and its details, or the error.")
            let response = try waitForCallback { (done: @escaping @Sendable (Response<[User]>) -> Void) in
                client.execute(API.users) { (response: Response<[User]>) in done(response) }
            }
            check(response.isSuccess, "GET /users succeeded with status \(response.statusCode ?? 0)")
            check((response.value?.count ?? 0) >= 3, "it decoded \(response.value?.count ?? 0) users")

            say("async/await returns the value or throws a LeashError. Cancelling the task cancels the request.")
            let user = try waitFor { try await client.execute(GetUser(id: 1)) }
            check(user.id == 1, "GetUser(id: 1) is a typed endpoint: it decoded \(user.name) without `as:`")
        }
    }
}
