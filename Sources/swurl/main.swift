import SwurlKit

// Everything lives in SwurlKit; main only runs it and exits with its status.
let status = Swurl.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: Environment.process())
exitProcess(status)
