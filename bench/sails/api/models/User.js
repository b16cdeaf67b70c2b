// As examples/petshop/models/User.yaml: a person who owns pets (one-to-many with Pet.owner).
module.exports = {
  attributes: {
    name: { type: 'string', required: true, maxLength: 60 },
    email: { type: 'string', unique: true, isEmail: true, required: true },
    password: { type: 'string', defaultsTo: '' },
    age: { type: 'number', min: 0, allowNull: true },
    pets: { collection: 'pet', via: 'owner' },
  },
  // customToJSON: {omit: [password]} in Skiff's declarative form.
  customToJSON: function () {
    const record = Object.assign({}, this);
    delete record.password;
    return record;
  },
};
