import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { DateTime } from './date-time.scalar.js';
import { ActionLogObject } from './resolvers/ActionLogObject.js';
import { ActivitySetting } from './resolvers/ActivitySetting.js';
import { FeedToken } from './resolvers/FeedToken.js';
import { adminUpdateUser } from './resolvers/Mutation/adminUpdateUser.js';
import { changeEmail } from './resolvers/Mutation/changeEmail.js';
import { changePassword } from './resolvers/Mutation/changePassword.js';
import { createFeedToken } from './resolvers/Mutation/createFeedToken.js';
import { createUser } from './resolvers/Mutation/createUser.js';
import { deleteFeedToken } from './resolvers/Mutation/deleteFeedToken.js';
import { deleteAccount } from './resolvers/Mutation/deleteAccount.js';
import { login } from './resolvers/Mutation/login.js';
import { logout } from './resolvers/Mutation/logout.js';
import { refreshToken } from './resolvers/Mutation/refreshToken.js';
import { resendConfirmationEmail } from './resolvers/Mutation/resendConfirmationEmail.js';
import { resetPassword } from './resolvers/Mutation/resetPassword.js';
import { sendResetPassword } from './resolvers/Mutation/sendResetPassword.js';
import { setUserSettings } from './resolvers/Mutation/setUserSettings.js';
import { updateActivitySetting } from './resolvers/Mutation/updateActivitySetting.js';
import { updateLocale } from './resolvers/Mutation/updateLocale.js';
import { validateEmail } from './resolvers/Mutation/validateEmail.js';
import { validateUser } from './resolvers/Mutation/validateUser.js';
import { loggedUser } from './resolvers/Query/loggedUser.js';
import { user } from './resolvers/Query/user.js';
import { users } from './resolvers/Query/users.js';
import { User } from './resolvers/User.js';
import { UserSettings } from './resolvers/UserSettings.js';

/** The users module's resolvers: one file per root field under resolvers/Query and resolvers/Mutation. */
export const usersResolvers: Resolvers = {
  DateTime,
  ActionLogObject,
  User,
  UserSettings,
  FeedToken,
  ActivitySetting,
  RootQueryType: { loggedUser, user, users },
  RootMutationType: {
    createUser,
    validateUser,
    resendConfirmationEmail,
    sendResetPassword,
    resetPassword,
    login,
    refreshToken,
    logout,
    changePassword,
    changeEmail,
    validateEmail,
    updateLocale,
    deleteAccount,
    setUserSettings,
    createFeedToken,
    deleteFeedToken,
    updateActivitySetting,
    adminUpdateUser,
  },
};
