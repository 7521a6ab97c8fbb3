import Foundation

/// The test certificates: an authority and a server certificate it issued for `localhost`,
/// 127.0.0.1 and ::1, generated once with `openssl` (EC P-256, valid 2000–2126). They secure
/// nothing: tests trust the authority explicitly.
enum TestCertificates {
    /// The PEM of the test authority that issued the server's certificate.
    static let authorityPEM = """
        -----BEGIN CERTIFICATE-----
        MIIBYzCCAQmgAwIBAgIBATAKBggqhkjOPQQDAjAYMRYwFAYDVQQDDA1MZWFzaCBU
        ZXN0IENBMCAXDTAwMDEwMTAwMDAwMFoYDzIxMjYwMTAxMDAwMDAwWjAYMRYwFAYD
        VQQDDA1MZWFzaCBUZXN0IENBMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEDkEd
        IaxsPcv/fASJAuisIGPmZPmNuQbhY0P/j6H1M4o5pHZXADJnsa+iVu5SWHkt9/3l
        hinaQvB1UHW8B3G9kqNCMEAwDwYDVR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMC
        AQYwHQYDVR0OBBYEFBs1asiVr83hCfNyLoI45bEhf6VPMAoGCCqGSM49BAMCA0gA
        MEUCIQDaQUVWe1b35e3G+QuVvwG2DA40wVK4wNy7rFGOdAd1OAIgNw+KjIUfbGRU
        +Ff74Svc7hBius5jKbsTgqUyPWFbGbM=
        -----END CERTIFICATE-----
        """

    /// The PEM of the server's certificate.
    static let certificatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIBwTCCAWigAwIBAgIBAjAKBggqhkjOPQQDAjAYMRYwFAYDVQQDDA1MZWFzaCBU
        ZXN0IENBMCAXDTAwMDEwMTAwMDAwMFoYDzIxMjYwMTAxMDAwMDAwWjAUMRIwEAYD
        VQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQY9P5c6Wqv
        3DR3OMw9zUjglHMENnbUYaHF9UGHv5/AOYGR0u3hEJN+fHZ0oBdD8DBd4XbSj++c
        SuaEbyCIE1sJo4GkMIGhMCwGA1UdEQQlMCOCCWxvY2FsaG9zdIcEfwAAAYcQAAAA
        AAAAAAAAAAAAAAAAATAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIHgDATBgNV
        HSUEDDAKBggrBgEFBQcDATAfBgNVHSMEGDAWgBQbNWrIla/N4Qnzci6COOWxIX+l
        TzAdBgNVHQ4EFgQU7w5b/XmUMPP9q182sPVLhFBSfBMwCgYIKoZIzj0EAwIDRwAw
        RAIgcznfVnBsvuG3Ghb8zwRdjJ0kDqXHvhEsBPowNKspAjUCIBP5/Dow6720JEaM
        syoQTcqmklRdTLQ9UeFrhwhDwFmj
        -----END CERTIFICATE-----
        """

    /// The PEM of the server's private key.
    static let keyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgV17/OVCDnNcfLW98
        3/w2zbSUy+UILtUlRMVQoChoAfuhRANCAAQY9P5c6Wqv3DR3OMw9zUjglHMENnbU
        YaHF9UGHv5/AOYGR0u3hEJN+fHZ0oBdD8DBd4XbSj++cSuaEbyCIE1sJ
        -----END PRIVATE KEY-----
        """
}
