/** The current web client's `FullConfig` query, as Apollo Client sends it (with `__typename`s). */
export const FULL_CONFIG_QUERY = `query FullConfig {
  config {
    name
    description
    slogan
    version
    registrationsOpen
    registrationsAllowlist
    demoMode
    longEvents
    countryCode
    languages
    primaryColor
    secondaryColor
    instanceLogo {
      url
      __typename
    }
    defaultPicture {
      id
      url
      name
      metadata {
        width
        height
        blurhash
        __typename
      }
      __typename
    }
    eventCategories {
      id
      label
      __typename
    }
    anonymous {
      participation {
        allowed
        validation {
          email {
            enabled
            confirmationRequired
            __typename
          }
          captcha {
            enabled
            __typename
          }
          __typename
        }
        __typename
      }
      eventCreation {
        allowed
        validation {
          email {
            enabled
            confirmationRequired
            __typename
          }
          captcha {
            enabled
            __typename
          }
          __typename
        }
        __typename
      }
      reports {
        allowed
        __typename
      }
      actorId
      __typename
    }
    location {
      latitude
      longitude
      __typename
    }
    maps {
      tiles {
        endpoint
        attribution
        __typename
      }
      routing {
        type
        __typename
      }
      __typename
    }
    geocoding {
      provider
      autocomplete
      __typename
    }
    resourceProviders {
      type
      endpoint
      software
      __typename
    }
    features {
      groups
      eventCreation
      eventExternal
      antispam
      __typename
    }
    restrictions {
      onlyAdminCanCreateGroups
      onlyGroupsCanCreateEvents
      __typename
    }
    auth {
      ldap
      databaseLogin
      oauthProviders {
        id
        label
        __typename
      }
      __typename
    }
    uploadLimits {
      default
      avatar
      banner
      __typename
    }
    instanceFeeds {
      enabled
      __typename
    }
    webPush {
      enabled
      publicKey
      __typename
    }
    analytics {
      id
      enabled
      configuration {
        key
        value
        type
        __typename
      }
      __typename
    }
    search {
      global {
        isEnabled
        isDefault
        __typename
      }
      __typename
    }
    exportFormats {
      eventParticipants
      __typename
    }
    __typename
  }
}`;
