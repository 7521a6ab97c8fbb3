#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One address `getaddrinfo` gave for a host, copied out of its list so that the list can be
/// freed at once.
struct ResolvedSocketAddress: @unchecked Sendable {  // Sendable: a plain value (sockaddr bytes).
    /// The address family (`AF_INET`, `AF_INET6`).
    var family: Int32
    /// The socket address, in storage large enough for any family.
    var storage: sockaddr_storage
    /// How many bytes of `storage` the address takes.
    var length: socklen_t

    /// Resolves `host` and `port` to TCP addresses, in the order the resolver prefers
    /// (RFC 6724: typically IPv6 first where the machine has it). Blocks: call it off the
    /// caller's thread.
    static func resolve(host: String, port: Int) -> Result<[ResolvedSocketAddress], ResolutionFailure> {
        guard (0...65535).contains(port) else { return .failure(ResolutionFailure(code: EAI_SERVICE)) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_protocol = Int32(IPPROTO_TCP)
        // The port is always numeric: no services database lookup.
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else { return .failure(ResolutionFailure(code: status)) }
        defer { freeaddrinfo(list) }
        var addresses: [ResolvedSocketAddress] = []
        var entry = list
        while let info = entry?.pointee {
            entry = info.ai_next
            guard let socketAddress = info.ai_addr, info.ai_family == AF_INET || info.ai_family == AF_INET6,
                Int(info.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size
            else { continue }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { destination in
                guard let base = destination.baseAddress else { return }
                base.copyMemory(from: UnsafeRawPointer(socketAddress), byteCount: Int(info.ai_addrlen))
            }
            addresses.append(ResolvedSocketAddress(family: info.ai_family, storage: storage, length: info.ai_addrlen))
        }
        return addresses.isEmpty ? .failure(ResolutionFailure(code: EAI_NONAME)) : .success(addresses)
    }
}

/// A `getaddrinfo` failure code (`EAI_…`).
struct ResolutionFailure: Error, Equatable {
    /// The `EAI_…` code.
    var code: Int32
}
