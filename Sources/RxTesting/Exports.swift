@_exported import Rx
