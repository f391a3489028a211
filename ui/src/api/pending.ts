// Schemas the server team announced for issue 7 (users and profile) that the committed
// schema.d.ts does not have yet. Delete this file once `npm run gen:api` has regenerated
// schema.d.ts from a server that serves them: types.ts then takes the generated ones, and the
// type check shows any difference between this announcement and what the server serves.

interface AnnouncedGroupRef {
  id: number;
  name: string;
}

export interface PendingSchemas {
  GroupRef: AnnouncedGroupRef;
  User: {
    id: number;
    firstName: string;
    lastName: string;
    username: string;
    roles: string[];
    accessType: string;
    testCaseGroups: AnnouncedGroupRef[];
  };
  UserSave: {
    id?: number;
    username: string;
    firstName: string;
    lastName: string;
    accessType: string;
    roles: string[];
    testCaseGroups: AnnouncedGroupRef[];
    password?: string;
  };
  PasswordChange: { newPassword: string; oldPassword?: string };
  Page_User: { content: PendingSchemas["User"][]; totalElements: number };
}
