import SwurlCurl
import SwurlCore

extension TransferTiming {
    /// The counters libcurl kept for the hop that just ran on `easy`.
    init(_ easy: EasyHandle) {
        self.init()
        nameLookup = easy.seconds(.nameLookup)
        connect = easy.seconds(.connect)
        appConnect = easy.seconds(.appConnect)
        preTransfer = easy.seconds(.preTransfer)
        startTransfer = easy.seconds(.startTransfer)
        total = easy.seconds(.total)
        downloadedBytes = easy.downloadedBytes
        uploadedBytes = easy.uploadedBytes
        headerBytes = easy.headerBytes
        downloadSpeed = easy.downloadSpeed
        uploadSpeed = easy.uploadSpeed
        remoteAddress = easy.remoteAddress
        remotePort = easy.remotePort
        localPort = easy.localPort
        httpVersion = easy.httpVersion
        newConnections = easy.newConnections
    }
}
