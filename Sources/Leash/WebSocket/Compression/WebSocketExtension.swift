/// One element of a `Sec-WebSocket-Extensions` header (RFC 6455 §9.1): an extension's name and
/// its parameters, in order.
///
/// Names are compared without regard to ASCII case, so they are kept lowercased; values keep
/// their case, and a quoted value is kept unquoted and unescaped.
package struct WebSocketExtension: Hashable, Sendable {
    /// One `name` or `name=value` parameter.
    package struct Parameter: Hashable, Sendable {
        /// The parameter's name, lowercased.
        package var name: String
        /// The value after `=`, unquoted; `nil` for a parameter without one.
        package var value: String?

        /// A parameter from its name and value; the name is lowercased.
        package init(name: String, value: String? = nil) {
            self.name = name.lowercased()
            self.value = value
        }
    }

    /// The extension's token, lowercased (`permessage-deflate`).
    package var name: String
    /// The parameters in the order they came.
    package var parameters: [Parameter]

    /// An extension from its name and parameters; the name is lowercased.
    package init(name: String, parameters: [Parameter] = []) {
        self.name = name.lowercased()
        self.parameters = parameters
    }

    /// The element as written in a header: `name; param; param=value`. Values here are tokens
    /// (our own offers), so none needs quoting.
    package var headerValue: String {
        ([name] + parameters.map { parameter in parameter.value.map { "\(parameter.name)=\($0)" } ?? parameter.name })
            .joined(separator: "; ")
    }
}
