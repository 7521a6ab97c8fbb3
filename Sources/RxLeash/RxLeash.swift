@_exported import Leash
@_exported import Rx
