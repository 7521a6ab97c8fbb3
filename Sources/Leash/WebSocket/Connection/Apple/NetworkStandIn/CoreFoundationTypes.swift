// A stand-in of the Core Foundation types that the Security calls of NetworkByteStreamConnector
// name, for the Linux build that takes Apple platforms' branches (see NetworkStandInScript.swift);
// a real Apple build uses Core Foundation's own. Linux's Foundation does not export them.
#if LEASH_APPLE_BRANCHES && !canImport(Network)
    import Foundation

    /// Bytes. https://developer.apple.com/documentation/corefoundation/cfdata (a class,
    /// toll-free bridged with `NSData`, which Swift's `Data` converts to with `as CFData`).
    /// `Data` itself here, so that the connector's `as CFData` compiles unchanged.
    typealias CFData = Data

    /// An array. https://developer.apple.com/documentation/corefoundation/cfarray (a class,
    /// toll-free bridged with `NSArray`, which a Swift array converts to with `as CFArray`).
    /// An array of anything here, so that the connector's `as CFArray` compiles unchanged.
    typealias CFArray = [Any]

    /// An error. https://developer.apple.com/documentation/corefoundation/cferror (a class,
    /// toll-free bridged with `NSError`).
    typealias CFError = NSError

    /// A memory allocator. https://developer.apple.com/documentation/corefoundation/cfallocator
    /// (a class). The connector passes only nil (the default allocator), so the stand-in has
    /// no instances.
    enum CFAllocator {}
#endif
