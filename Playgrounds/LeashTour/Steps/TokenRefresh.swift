import Foundation
import LeashExamples
import RxLeash

extension Tour {
    /// Ten requests hit 401 at once; one refresh serves them all.
    func tokenRefresh() {
        step("Token refresh: ten 401s, one refresh", needsLocalServer: true) {
            guard let state = api.state else { return }
            say(
                """
                The manager gets a TokenRefresher: how to obtain a new token, as a stream (here
                POST /token through a client of its own). Executions that fail with 401 wait
                for one shared refresh, then each retries once with the new token.
                """)
            let tokens = TokenStore(token: state.currentToken)
            let tokenClient = Client(manager: try Manager.Builder().url(api.baseURL).build())
            let refresher = TokenRefresher(authenticator: tokens) {
                tokenClient.rx.single(RefreshToken()).do(onSuccess: { tokens.token = $0.token }).asCompletable()
            }
            let client = Client(
                manager: try Manager.Builder().url(api.baseURL).refreshing(with: refresher).timeout(10).build())

            let me = try client.rx.single(GetMe()).asObservable().toBlocking(timeout: 10).single()
            check(me.id == 1, "with a valid token, GET /me answers at once")

            state.expireToken()
            let issuedBefore = state.tokensIssued
            let rejectionsBefore = state.rejections
            say("The server now considers the token expired. Ten requests go out together:")
            let users = try Observable.merge((1...10).map { _ in client.rx.execute(GetMe()) })
                .toBlocking(timeout: 10).toArray()
            let refreshes = state.tokensIssued - issuedBefore
            let rejected = state.rejections - rejectionsBefore
            say(
                """
                   \(rejected) got 401; \(refreshes) refresh; each retried with the new token,
                   \(tokens.token ?? "none"). (A request that starts while a refresh is running
                   waits for it, and goes out with the new token.)
                """)
            check(rejected == 10, "all ten met the expired token and got 401")
            check(users.count == 10 && users.allSatisfy { $0.id == 1 }, "all ten succeeded")
            check(refreshes == 1, "exactly one refresh served them all")
        }
    }
}
